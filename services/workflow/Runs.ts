import { Effect, Option } from "effect"
import { Idempotency } from "../../platform/Idempotency.js"
import { traced } from "../../platform/Traced.js"
import { createdHere, type CreatedRun, RunModule, type RunRequest } from "../../runtime/run/RunModule.js"
import { requireReader, RUN_ADMINS } from "../../schemas/Authorization.js"
import { conflict, forbidden, notFound } from "../../schemas/Errors.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { Run, type RunHistoryParams } from "../../schemas/Run.js"
import { ExternalToolCalls } from "../ports/ExternalToolCalls.js"
import { decodeRunCursor, encodeRunCursor } from "./RunCursor.js"
import { RunsRepo, sumUsage, toRun, toStep } from "./RunsRepo.js"
import { VersionsRepo } from "./VersionsRepo.js"
import { WorkflowsRepo } from "./WorkflowsRepo.js"

/** The 202 answer for a run just created. */
export const acceptedRun = (row: CreatedRun): Run => ({
  id: row.id,
  workflow_id: row.workflow_id,
  workflow_name: row.workflow_name,
  version: row.version,
  status: "pending",
  trigger_type: row.trigger_type,
  is_dry_run: row.is_dry_run,
  created_at: row.created_at,
  retention_hold: false,
  ...(row.session_id !== null ? { session_id: row.session_id } : {})
})

interface StartBody {
  readonly input_params: Record<string, unknown>
  readonly session_id?: string | undefined
  /** A dry run's version (default the latest saved). */
  readonly version?: number | undefined
}

interface StartOptions {
  readonly dryRun: boolean
  readonly idempotencyKey: string | undefined
  /** Set by services that start runs for their own reasons (a feedback workflow); else api or ui by credential. */
  readonly triggerType?: Run["trigger_type"]
  /** Search settings and knowledge bases for this run only (document generation). */
  readonly searchOverrides?: RunRequest["searchOverrides"]
}

/** Starting, reading and cancelling runs. */
export class Runs extends Effect.Service<Runs>()("Runs", {
  dependencies: [RunsRepo.Default, VersionsRepo.Default, WorkflowsRepo.Default],
  effect: Effect.gen(function*() {
    const workflows = yield* WorkflowsRepo
    const versions = yield* VersionsRepo
    const runs = yield* RunsRepo
    const modules = yield* RunModule
    const toolCalls = yield* ExternalToolCalls
    const idempotency = yield* Idempotency

    const startAsRead = (principal: Principal, workflowId: WorkflowId, body: StartBody, options: StartOptions) =>
      Effect.gen(function*() {
        const workflow = yield* workflows.requireVisible(principal, workflowId)
        yield* requireReader(principal)
        // A real run runs the live version; a dry run tests the latest saved one, a draft included.
        const versionNumber = options.dryRun ? body.version ?? workflow.latestVersion : workflow.activeVersion
        if (options.dryRun && versionNumber !== null && Option.isNone(yield* versions.get(principal, workflowId, versionNumber).pipe(Effect.orDie))) {
          return yield* notFound(`Version ${versionNumber}`)
        }
        const created = createdHere()
        // The run and the key's record commit together: a retry gets this run, or (the first request died) starts it.
        const run = yield* idempotency.run({
          principal,
          key: Option.fromNullable(options.idempotencyKey),
          operation: `${options.dryRun ? "dry-run" : "run"}:${workflowId}`,
          request: body,
          response: Run,
          effect: created.keep(modules.create({
            tenantId: principal.tenantId,
            workflowId,
            version: versionNumber === null ? undefined : { number: versionNumber, name: workflow.name },
            asRead: versionNumber === null
              ? undefined
              : { active: !options.dryRun, latest: options.dryRun && body.version === undefined ? workflow.latestVersion : undefined },
            triggerType: options.triggerType ?? (principal.authMethod === "api_key" ? "api" : "ui"),
            createdBy: principal.userId,
            apiKeyId: principal.apiKeyId ?? null,
            isDryRun: options.dryRun,
            input: body.input_params,
            sessionId: body.session_id ?? null,
            ...(options.searchOverrides !== undefined ? { searchOverrides: options.searchOverrides } : {})
          })).pipe(Effect.map(acceptedRun))
        })
        yield* created.launch(modules, run.id)
        return run
      })

    /**
     * 202 with a pending run pinned to the active version; the engine takes it from there.
     * `input_params` must match the start node's input_schema. The AI Employee's row is this
     * node's copy when it has one; a copy the run's insert finds stale is read again (twice at most).
     */
    const start = (principal: Principal, workflowId: WorkflowId, body: StartBody, options: StartOptions) =>
      startAsRead(principal, workflowId, body, options).pipe(
        Effect.tapError((e) => e._tag === "Conflict" && e.code === "WORKFLOW_CHANGED" ? workflows.forgetHead(principal, workflowId) : Effect.void),
        Effect.retry({ times: 2, while: (e) => e._tag === "Conflict" && e.code === "WORKFLOW_CHANGED" })
      )

    const visible = (principal: Principal, runId: string) =>
      runs.get(principal, runId).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Run")), onSome: Effect.succeed })),
        Effect.tap(() => requireReader(principal))
      )

    const get = (principal: Principal, runId: string) =>
      Effect.gen(function*() {
        const row = yield* visible(principal, runId)
        const steps = yield* runs.steps(row.id)
        return {
          ...toRun(row),
          input_params: row.input_params,
          token_usage: sumUsage(steps),
          output: row.output ?? null,
          named_outputs: row.named_outputs
        }
      })

    const steps = (principal: Principal, runId: string) =>
      visible(principal, runId).pipe(
        Effect.flatMap((row) => runs.steps(row.id)),
        Effect.map((rows) => ({ items: rows.map(toStep) }))
      )

    const listForWorkflow = (principal: Principal, workflowId: WorkflowId, f: {
      page: number
      page_size: number
      trigger_type?: string | undefined
      status?: string | undefined
      since?: Date | undefined
    }) =>
      Effect.gen(function*() {
        yield* workflows.get(principal, workflowId).pipe(
          Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("AI Employee")), onSome: Effect.succeed }))
        )
        yield* requireReader(principal)
        const offset = (f.page - 1) * f.page_size
        const { rows, total } = yield* runs.listForWorkflow(principal, workflowId, { ...f, limit: f.page_size, offset })
        return { items: rows.map(toRun), total, page: f.page, page_size: f.page_size, has_more: offset + rows.length < total }
      })

    const recent = (principal: Principal, p: { limit: number; offset: number }) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const { rows, total } = yield* runs.recent(principal, p.limit, p.offset)
        return {
          items: rows.map((r) => ({ ...toRun(r), run_count: r.run_count })),
          total,
          limit: p.limit,
          offset: p.offset,
          has_more: p.offset + rows.length < total
        }
      })

    const history = (principal: Principal, p: typeof RunHistoryParams.Type) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const after = p.cursor === undefined ? undefined : yield* decodeRunCursor(p.cursor, p.order)
        const rows = yield* runs.history(principal, { ...p, after, limit: p.page_size })
        const page = rows.slice(0, p.page_size)
        const last = page.at(-1)
        return {
          items: page.map(toRun),
          next_cursor: rows.length > p.page_size && last !== undefined ? encodeRunCursor(p.order, last.created_at_key, last.id) : null
        }
      })

    const cancel = (principal: Principal, runId: string) =>
      Effect.gen(function*() {
        const row = yield* runs.get(principal, runId).pipe(
          Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Run")), onSome: Effect.succeed }))
        )
        if (!RUN_ADMINS.includes(principal.role)) return yield* forbidden("Cancelling a run is for admins")
        const result = yield* modules.cancel(row.id)
        switch (result.outcome) {
          case "cancelled":
            return { id: row.id, status: "cancelled" as const, hitl_cancelled_count: result.hitl_cancelled }
          case "terminal":
            return yield* conflict("RUN_TERMINAL", `The run is already ${result.status}`)
          case "missing":
            return yield* notFound("Run")
        }
      })

    const externalToolSnapshots = (principal: Principal, runId: string) =>
      visible(principal, runId).pipe(Effect.zipRight(toolCalls.forRun(principal.tenantId, runId)), Effect.map((items) => ({ items })))

    return traced("Runs", { start, visible, get, steps, listForWorkflow, recent, history, cancel, externalToolSnapshots })
  })
}) {}
