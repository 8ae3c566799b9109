import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import type { DagNode } from "../../schemas/Dag.js"

/** HITL requests as the engine creates them; the HITL API reads and answers them. */
export class HitlStore extends Context.Tag("HitlStore")<HitlStore, {
  /** Creates the node's request once; returns its id. */
  readonly open: (
    run: { id: string; tenant_id: string; workflow_id: string },
    node: DagNode,
    deferredToken: string
  ) => Effect.Effect<string>
  readonly pendingCount: (runId: string) => Effect.Effect<number>
}>() {
  static readonly layer = Layer.effect(
    HitlStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return {
        open: (run, node, deferredToken) =>
          Effect.gen(function*() {
            const hitl = node.hitl!
            yield* sql`INSERT INTO hitl_requests ${
              sql.insert({
                id: randomUUID(),
                tenant_id: run.tenant_id,
                run_id: run.id,
                workflow_id: run.workflow_id,
                node_id: node.id,
                type: hitl.type,
                prompt: hitl.prompt,
                choices: hitl.choices === undefined ? null : JSON.stringify(hitl.choices),
                form_schema: hitl.form_schema === undefined ? null : JSON.stringify(hitl.form_schema),
                assignee: JSON.stringify(hitl.assignee),
                deferred_token: deferredToken
              })
            } ON CONFLICT (run_id, node_id) DO NOTHING`
            const [row] = yield* sql<{ id: string }>`SELECT id FROM hitl_requests WHERE run_id = ${run.id} AND node_id = ${node.id}`
            return row!.id
          }).pipe(Effect.orDie),
        pendingCount: (runId) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM hitl_requests WHERE run_id = ${runId}
            AND status IN ('pending', 'claimed')`.pipe(Effect.map((rows) => rows[0]?.n ?? 0), Effect.orDie)
      }
    })
  )
}
