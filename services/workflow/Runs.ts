import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { DurableDeferred, WorkflowEngine } from "@effect/workflow"
import { Effect, Option } from "effect"
import { badRequest, conflict, forbidden, notFound } from "../../schemas/Errors.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { Run } from "../../schemas/Run.js"
import type { Role } from "../../schemas/Roles.js"
import { checkJsonSchema } from "../../runtime/dag/JsonSchema.js"
import { Cancellation } from "../../runtime/engine/Cancellation.js"
import { hitlDeferred } from "../../runtime/engine/Deferreds.js"
import { RunEvents } from "../../runtime/engine/RunEvents.js"
import { RunEndHooks } from "../../runtime/engine/RunHooks.js"
import { RunStore } from "../../runtime/engine/RunStore.js"
import { RunWorkflow } from "../../runtime/engine/RunWorkflow.js"
import { RunTraces } from "../../otel/RunTraces.js"
import { Idempotency } from "../shared/Idempotency.js"
import { requireReader } from "./Policy.js"
import { RunsRepo, sumUsage, toRun, toStep } from "./RunsRepo.js"
import { VersionsRepo } from "./VersionsRepo.js"
import { WorkflowsRepo } from "./WorkflowsRepo.js"

/** Who may cancel runs. */
export const RUN_ADMINS: ReadonlyArray<Role> = ["env_admin", "system_admin", "builder_admin"]

/** Starting, reading and cancelling runs. */
export class Runs extends Effect.Service<Runs>()("Runs", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workflows = yield* WorkflowsRepo
    const versions = yield* VersionsRepo
    const runs = yield* RunsRepo
    const store = yield* RunStore
    const events = yield* RunEvents
    const cancellation = yield* Cancellation
    const traces = yield* RunTraces
    const hooks = yield* RunEndHooks
    const idempotency = yield* Idempotency
    const engine = yield* WorkflowEngine.WorkflowEngine
    const withEngine = Effect.provideService(WorkflowEngine.WorkflowEngine, engine)

    /**
     * 202 with a pending run pinned to the active version; the engine takes it from there.
     * `input_params` must match the start node's input_schema.
     */
    const start = (principal: Principal, workflowId: WorkflowId, body: {
      input_params: Record<string, unknown>
      session_id?: string | undefined
    }, options: {
      readonly dryRun: boolean
      readonly idempotencyKey: string | undefined
      /** Set by services that start runs for their own reasons (a feedback workflow); else api or ui by credential. */
      readonly triggerType?: Run["trigger_type"]
    }) =>
      Effect.gen(function*() {
        const workflow = yield* workflows.visible(principal, workflowId)
        yield* requireReader(principal)
        if (workflow.active_version === null) {
          return yield* conflict("NOT_PUBLISHED", "This AI Employee has no published version to run")
        }
        const version = yield* versions.get(principal, workflowId, workflow.active_version).pipe(
          Effect.orDie,
          Effect.flatMap(Effect.orDieWith(() => "active version vanished"))
        )
        const schema = version.dag_definition.input_schema
        if (schema !== undefined && schema !== null) {
          const problems = checkJsonSchema(schema, body.input_params)
          if (problems.length > 0) {
            return yield* badRequest(
              "INVALID_INPUT",
              `input_params do not match the input schema: ${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}`,
              problems
            )
          }
        }
        const create = Effect.gen(function*() {
          const row = yield* runs.insert(principal, {
            id: randomUUID(),
            workflow_id: workflowId,
            workflow_name: workflow.name,
            version: version.number,
            trigger_type: options.triggerType ?? (principal.authMethod === "api_key" ? "api" : "ui"),
            is_dry_run: options.dryRun,
            input_params: body.input_params,
            session_id: body.session_id ?? null
          })
          yield* RunWorkflow.execute({ runId: row.id }, { discard: true }).pipe(withEngine)
          return toRun(row)
        })
        return yield* idempotency.run({
          principal,
          key: Option.fromNullable(options.idempotencyKey),
          operation: `${options.dryRun ? "dry-run" : "run"}:${workflowId}`,
          request: body,
          response: Run,
          effect: create
        })
      }).pipe(Effect.withSpan("Runs.start"))

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

    /** Cancels one run: its status, its HITL requests, its in-flight node (wherever it runs) and its child runs. */
    const cancelRun = (runId: string): Effect.Effect<{ status: "cancelled"; hitl: number } | undefined> =>
      Effect.gen(function*() {
        const cancelled = yield* sql.withTransaction(Effect.gen(function*() {
          if ((yield* store.transition(runId, "cancel")) === undefined) return undefined
          return yield* sql<{ node_id: string; deferred_token: string }>`UPDATE hitl_requests SET status = 'cancelled'
            WHERE run_id = ${runId} AND status IN ('pending', 'claimed') RETURNING node_id, deferred_token`
        })).pipe(Effect.orDie)
        if (cancelled === undefined) return undefined
        yield* hooks.ended({ runId, status: "cancelled", error: "Run cancelled" })
        yield* events.append(runId, "run_cancelled", { status: "cancelled" }, "run_cancelled")
        yield* traces.exportRoot(runId)
        yield* cancellation.raise(runId)
        yield* Effect.forEach(cancelled, (h) =>
          DurableDeferred.succeed(hitlDeferred(h.node_id), {
            token: DurableDeferred.Token.make(h.deferred_token),
            value: { cancelled: true, approved: false, response: null }
          }).pipe(withEngine), { discard: true })
        for (const child of yield* runs.activeChildren(runId)) yield* cancelRun(child)
        return { status: "cancelled" as const, hitl: cancelled.length }
      })

    const cancel = (principal: Principal, runId: string) =>
      Effect.gen(function*() {
        const row = yield* runs.get(principal, runId).pipe(
          Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Run")), onSome: Effect.succeed }))
        )
        if (!RUN_ADMINS.includes(principal.role)) return yield* forbidden("Cancelling a run is for admins")
        const result = yield* cancelRun(row.id)
        if (result === undefined) return yield* conflict("RUN_TERMINAL", `The run is already ${(yield* store.status(row.id)) ?? "finished"}`)
        return { id: row.id, status: result.status, hitl_cancelled_count: result.hitl }
      }).pipe(Effect.withSpan("Runs.cancel"))

    const externalToolSnapshots = (principal: Principal, runId: string) =>
      visible(principal, runId).pipe(Effect.as({ items: [] as Array<Record<string, unknown>> }))

    return { start, visible, get, steps, listForWorkflow, recent, cancel, externalToolSnapshots }
  })
}) {}
