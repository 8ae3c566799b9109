import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { PreparedSql } from "../../platform/PreparedSql.js"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { presentOnly } from "../../schemas/ContractFields.js"
import type { Principal } from "../../schemas/Principal.js"
import { type Run, RUN_FIELDS, type Step, STEP_FIELDS } from "../../schemas/Run.js"
import { isRetryable } from "../../schemas/RunLifecycle.js"
import { RUN_HEADER, RunRow as RunRowSchema, StepRow } from "../../schemas/RunRow.js"
import { RunTotals } from "./RunTotals.js"

/** The columns the run API reads of a run row. */
export const RunRow = RunRowSchema.pick(
  ...RUN_HEADER,
  "tenant_id",
  "input_params",
  "output",
  "named_outputs",
  "error",
  "parent_run_id",
  "session_id",
  "created_at",
  "started_at",
  "finished_at",
  "scheduled_fire_time",
  "skip_reason",
  "retention_hold"
)
export type RunRow = typeof RunRow.Type

const runRows = decodeRows("runs", RunRow)
const recentRunRows = decodeRows("runs", Schema.extend(RunRow, Schema.Struct({ run_count: Schema.Number })))
/** With `created_at` as text too: microseconds, which a Date would round away (the history's cursor needs them). */
const historyRows = decodeRows("runs", Schema.extend(RunRow, Schema.Struct({ created_at_key: Schema.String })))

export const toRun = (row: RunRow): Run => presentOnly(row, RUN_FIELDS)

const stepRows = decodeRows("run_steps", StepRow)

export const toStep = ({ id, ...row }: StepRow): Step => ({
  step_id: id,
  ...presentOnly(row, STEP_FIELDS),
  ...(row.error_kind === null ? {} : { retryable: isRetryable(row.error_kind) })
})

/** Per-model token usage summed over a run's steps. */
export const sumUsage = (steps: ReadonlyArray<StepRow>) => {
  const total: Record<string, { prompt_tokens: number; completion_tokens: number; total_tokens: number }> = {}
  for (const s of steps) {
    for (const [model, u] of Object.entries(s.token_usage)) {
      const t = total[model] ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }
      total[model] = {
        prompt_tokens: t.prompt_tokens + u.prompt_tokens,
        completion_tokens: t.completion_tokens + u.completion_tokens,
        total_tokens: t.total_tokens + u.total_tokens
      }
    }
  }
  return total
}

/** A page of the recent-runs list ($1 tenant, $2 limit, $3 offset): see `recent`. */
const RECENT_PAGE = `
  SELECT r.*, CASE WHEN r.session_id IS NULL THEN 1 ELSE (SELECT count(*)::int FROM runs s
    WHERE s.tenant_id = r.tenant_id AND s.session_id = r.session_id AND NOT s.is_dry_run AND s.parent_run_id IS NULL) END AS run_count
  FROM runs r WHERE r.tenant_id = $1 AND NOT r.is_dry_run AND r.parent_run_id IS NULL
    AND (r.session_id IS NULL OR NOT EXISTS (SELECT 1 FROM runs n
      WHERE n.tenant_id = r.tenant_id AND n.session_id = r.session_id AND NOT n.is_dry_run AND n.parent_run_id IS NULL
        AND (n.created_at > r.created_at OR (n.created_at = r.created_at AND n.id < r.id))))
  ORDER BY r.created_at DESC, r.id LIMIT $2 OFFSET $3`

/** Run reads, scoped to the caller's tenant. */
export class RunsRepo extends Effect.Service<RunsRepo>()("RunsRepo", {
  dependencies: [RunTotals.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prepared = yield* PreparedSql
    const totals = yield* RunTotals

    const get = (scope: Principal, id: string) =>
      sql`SELECT * FROM runs WHERE tenant_id = ${scope.tenantId} AND id = ${id}`.pipe(runRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const steps = (runId: string) =>
      sql`SELECT * FROM run_steps WHERE run_id = ${runId} ORDER BY position, started_at NULLS LAST`.pipe(stepRows).pipe(Effect.orDie)

    const listForWorkflow = (scope: Principal, workflowId: string, f: {
      limit: number
      offset: number
      trigger_type?: string | undefined
      status?: string | undefined
      since?: Date | undefined
    }) => {
      const where = sql.and([
        sql`tenant_id = ${scope.tenantId}`,
        sql`workflow_id = ${workflowId}`,
        sql`NOT is_dry_run`,
        ...(f.trigger_type !== undefined ? [sql`trigger_type = ${f.trigger_type}`] : []),
        ...(f.status !== undefined ? [sql`status = ${f.status}`] : []),
        ...(f.since !== undefined ? [sql`created_at >= ${f.since}`] : [])
      ])
      return Effect.all([
        sql`SELECT * FROM runs WHERE ${where} ORDER BY created_at DESC, id LIMIT ${f.limit} OFFSET ${f.offset}`.pipe(runRows, Effect.orDie),
        totals.forWorkflow(scope.tenantId, workflowId, f)
      ], { concurrency: 2 }).pipe(Effect.map(([rows, total]) => ({ rows, total })))
    }

    /**
     * Recent top-level runs; the runs of one chat session fold into its latest. The page walks the
     * history index newest first and keeps a session's run only when no later run of the session
     * exists (an index probe), so it costs the page, not the history; the total sums counted days (RunTotals).
     */
    // Prepared (a fixed text): planning it over every partition with its two subplans costs five times running it.
    const recent = (scope: Principal, limit: number, offset: number) =>
      Effect.all([
        prepared.query(RECENT_PAGE, [scope.tenantId, limit, offset]).pipe(recentRunRows, Effect.orDie),
        totals.recent(scope.tenantId)
      ], { concurrency: 2 }).pipe(Effect.map(([rows, total]) => ({ rows, total })))

    /** A page of the run history after `after` (created_at, id), newest or oldest first; one row more than asked tells whether more follow. */
    const history = (scope: Principal, f: {
      readonly status?: string | undefined
      readonly trigger_type?: string | undefined
      readonly workflow_id?: string | undefined
      readonly parent_run_id?: string | undefined
      readonly since?: Date | undefined
      readonly until?: Date | undefined
      readonly after?: { readonly createdAt: string; readonly id: string } | undefined
      readonly order: "newest" | "oldest"
      readonly limit: number
    }) =>
      sql`SELECT *, created_at::text AS created_at_key FROM runs WHERE ${
        sql.and([
          sql`tenant_id = ${scope.tenantId}`,
          sql`NOT is_dry_run`,
          ...(f.status !== undefined ? [sql`status = ${f.status}`] : []),
          ...(f.trigger_type !== undefined ? [sql`trigger_type = ${f.trigger_type}`] : []),
          ...(f.workflow_id !== undefined ? [sql`workflow_id = ${f.workflow_id}`] : []),
          ...(f.parent_run_id !== undefined ? [sql`parent_run_id = ${f.parent_run_id}`] : []),
          ...(f.since !== undefined ? [sql`created_at >= ${f.since}`] : []),
          ...(f.until !== undefined ? [sql`created_at < ${f.until}`] : []),
          ...(f.after !== undefined
            ? [
              f.order === "newest"
                ? sql`(created_at, id) < (${f.after.createdAt}::timestamptz, ${f.after.id}::uuid)`
                : sql`(created_at, id) > (${f.after.createdAt}::timestamptz, ${f.after.id}::uuid)`
            ]
            : [])
        ])
      } ORDER BY ${f.order === "newest" ? sql`created_at DESC, id DESC` : sql`created_at ASC, id ASC`} LIMIT ${f.limit + 1}`.pipe(historyRows, Effect.orDie)

    return traced("RunsRepo", { get, steps, listForWorkflow, recent, history })
  })
}) {}
