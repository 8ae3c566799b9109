import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Audit } from "../../../platform/Audit.js"
import { AppConfig } from "../../../platform/Config.js"
import { decodeRows } from "../../../platform/Rows.js"
import { traced } from "../../../platform/Traced.js"
import { requireBuilder, requireReader, RUN_ADMINS } from "../../../schemas/Authorization.js"
import { forbidden, notFound } from "../../../schemas/Errors.js"
import type { WorkflowId } from "../../../schemas/Ids.js"
import type { Principal } from "../../../schemas/Principal.js"
import { RunsRepo } from "../RunsRepo.js"
import { WorkflowsRepo } from "../WorkflowsRepo.js"

const counts = decodeRows("runs", Schema.Struct({ held_workflows: Schema.Number, held_runs: Schema.Number }))

/** The caller's tenant's retention policy, and holds that keep a run or an AI Employee's runs past it. */
export class RetentionHolds extends Effect.Service<RetentionHolds>()("RetentionHolds", {
  dependencies: [RunsRepo.Default, WorkflowsRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const audit = yield* Audit
    const runs = yield* RunsRepo
    const workflows = yield* WorkflowsRepo

    const policy = (principal: Principal) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const [held] = yield* sql`SELECT
            (SELECT count(*)::int FROM workflows WHERE tenant_id = ${principal.tenantId} AND retention_hold) AS held_workflows,
            (SELECT count(*)::int FROM runs WHERE tenant_id = ${principal.tenantId} AND retention_hold) AS held_runs`.pipe(counts, Effect.orDie)
        return {
          run_retention_days: principal.settings.run_retention_days ?? config.runRetentionDays,
          run_detail_retention_days: principal.settings.run_detail_retention_days ?? null,
          max_run_retention_days: config.runRetentionMaxDays,
          held_workflows: held?.held_workflows ?? 0,
          held_runs: held?.held_runs ?? 0
        }
      })

    const setRun = (principal: Principal, runId: string, hold: boolean) =>
      Effect.gen(function*() {
        const run = yield* runs.get(principal, runId).pipe(Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Run")), onSome: Effect.succeed })))
        yield* requireReader(principal)
        if (!RUN_ADMINS.includes(principal.role)) return yield* forbidden("Holding a run past its retention is for admins")
        yield* sql`UPDATE runs SET retention_hold = ${hold} WHERE tenant_id = ${principal.tenantId} AND id = ${run.id}`.pipe(Effect.orDie)
        yield* audit.record(principal, { action: hold ? "run.retention_held" : "run.retention_released", resourceType: "run", resourceId: run.id })
        return { resource_type: "run" as const, id: run.id, retention_hold: hold }
      })

    const setWorkflow = (principal: Principal, id: WorkflowId, hold: boolean) =>
      Effect.gen(function*() {
        // An archived AI Employee's runs can be held too.
        yield* workflows.get(principal, id).pipe(Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("AI Employee")), onSome: Effect.succeed })))
        yield* requireBuilder(principal)
        yield* sql`UPDATE workflows SET retention_hold = ${hold} WHERE tenant_id = ${principal.tenantId} AND id = ${id}`.pipe(Effect.orDie)
        yield* audit.record(principal, {
          action: hold ? "workflow.retention_held" : "workflow.retention_released",
          resourceType: "workflow",
          resourceId: id
        })
        return { resource_type: "workflow" as const, id, retention_hold: hold }
      })

    return traced("RetentionHolds", {
      policy,
      holdRun: (p: Principal, runId: string) => setRun(p, runId, true),
      releaseRun: (p: Principal, runId: string) => setRun(p, runId, false),
      holdWorkflow: (p: Principal, id: WorkflowId) => setWorkflow(p, id, true),
      releaseWorkflow: (p: Principal, id: WorkflowId) => setWorkflow(p, id, false)
    })
  })
}) {}
