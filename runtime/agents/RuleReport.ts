import { Context, Effect } from "effect"
import { type WorkerPool, workerTask } from "../../platform/workers/WorkerPool.js"
import type * as RuleReportTask from "./RuleReportTask.js"

export const XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

export type { RuleResult, RuleRow } from "./RuleReportTask.js"

/** Where generated files go (the agent service stores them and serves them for download). */
export class GeneratedFiles extends Context.Tag("GeneratedFiles")<GeneratedFiles, {
  readonly save: (file: {
    readonly tenantId: string
    readonly filename: string
    readonly contentType: string
    readonly bytes: Uint8Array
    readonly runId: string
  }) => Effect.Effect<string>
}>() {}

const reportTask = workerTask<typeof RuleReportTask, "buildRuleReport">(new URL("./RuleReportTask.js", import.meta.url), "buildRuleReport")

/**
 * The rule_validation report (RuleReportTask.ts), written on the worker pool: its rules and
 * reasons are the tenant's and the model's, as long as they are, and exceljs stays out of the
 * process that serves requests and runs.
 */
export const ruleReport = (pool: WorkerPool, tenantId: string, title: string, passed: boolean, rows: ReadonlyArray<RuleReportTask.RuleRow>) =>
  pool.run(reportTask, { title, passed, rows }, { tenantId }).pipe(Effect.withSpan("rule_validation.report"))
