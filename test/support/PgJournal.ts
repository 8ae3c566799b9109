import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { DatabaseLive } from "../../platform/Database.js"
import { EventBus } from "../../platform/EventBus.js"
import { Journal } from "../../runtime/run/Journal.js"
import { RunEvents } from "../../runtime/run/RunEvents.js"
import { migrateAll } from "../../services/gateway/Migrations.js"
import type { JournalBackend } from "./KernelHarness.js"
import { migratedDatabase } from "./TestDatabase.js"
import { configLayer } from "./UnitLayers.js"

/** The product's PostgreSQL journal and run events on a migrated database of the suite's own. */
export const PgJournalLive = Layer.unwrapScoped(
  Effect.map(migratedDatabase, (db) =>
    Layer.effectDiscard(migrateAll).pipe(
      Layer.provideMerge(
        Layer.mergeAll(Journal.layer, RunEvents.layer).pipe(Layer.provide(Layer.effect(EventBus, EventBus.memory)), Layer.provideMerge(DatabaseLive))
      ),
      Layer.provide(configLayer({ DATABASE_URL: db.url }))
    ))
).pipe(Layer.orDie)

/** What other modules write, as they write it (the run module's wait resolution, the HITL module's answer), and the events. */
export const pgJournalBackend = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const runEvents = yield* RunEvents
  const tenantId = randomUUID()
  yield* sql`INSERT INTO tenants (id, name, slug) VALUES (${tenantId}, 'Kernel suite', ${`kernel-${tenantId}`})`
  const wake = (runId: string) => sql`UPDATE runs SET wake_seq = wake_seq + 1, updated_at = now() WHERE id = ${runId}`
  const backend: JournalBackend = {
    insertRun: (r) =>
      Effect.gen(function*() {
        yield* sql`INSERT INTO workflows (id, tenant_id, name, interaction_type) VALUES (${r.workflow_id}, ${r.tenant_id}, ${r.workflow_name}, 'form')`
        yield* sql`INSERT INTO runs (id, tenant_id, workflow_id, workflow_name, version, status, trigger_type, is_dry_run, input_params)
          VALUES (${r.id}, ${r.tenant_id}, ${r.workflow_id}, ${r.workflow_name}, ${r.version}, ${r.status}, ${r.trigger_type}, ${r.is_dry_run},
            ${JSON.stringify(r.input_params)}::jsonb)`
      }).pipe(Effect.orDie),
    resolveWait: (runId, nodeId, resolution) =>
      Effect.gen(function*() {
        const rows = yield* sql`UPDATE run_waits SET resolution = ${JSON.stringify(resolution ?? null)}::jsonb, resolved_at = now()
          WHERE run_id = ${runId} AND node_id = ${nodeId} AND resolved_at IS NULL RETURNING node_id`
        if (rows.length > 0) yield* wake(runId)
        return rows.length > 0
      }).pipe(Effect.orDie),
    answerHitl: (runId, nodeId, response) =>
      Effect.gen(function*() {
        const rows = yield* sql`UPDATE hitl_requests SET status = 'completed', response = ${JSON.stringify(response)}::jsonb, responded_at = now()
          WHERE run_id = ${runId} AND node_id = ${nodeId} AND status IN ('pending', 'claimed') RETURNING id`
        if (rows.length > 0) yield* wake(runId)
        return rows.length > 0
      }).pipe(Effect.orDie),
    events: (runId) => runEvents.after(runId, 0)
  }
  return { backend, tenantId }
}).pipe(Effect.orDie)
