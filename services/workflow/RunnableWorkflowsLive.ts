import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { RunnableWorkflows } from "../../runtime/run/Ports.js"
import { WorkflowsRepo } from "./WorkflowsRepo.js"

/**
 * The workflow service's side of the run kernel's port: active versions (from the repository's
 * copy of each AI Employee's row, the one its writes forget; `active` reads the row anew) and
 * version snapshots.
 */
export const RunnableWorkflowsLive = Layer.effect(
  RunnableWorkflows,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WorkflowsRepo
    const activeKept = (tenantId: string, workflowId: string) =>
      Effect.map(
        repo.head(tenantId, workflowId),
        (head) => head === undefined || head.activeVersion === null ? undefined : { name: head.name, version: head.activeVersion }
      )
    const forgetActive = (tenantId: string, workflowId: string) => repo.forgetHead({ tenantId }, workflowId)
    return {
      activeKept,
      forgetActive,
      // A fresh read refills the copy the next start answers from.
      active: (tenantId, workflowId) => Effect.zipRight(forgetActive(tenantId, workflowId), activeKept(tenantId, workflowId)),
      version: (workflowId, number) =>
        sql`SELECT v.dag_definition, v.config_snapshot,
          w.config AS current_config FROM workflow_versions v JOIN workflows w ON w.id = v.workflow_id
          WHERE v.workflow_id = ${workflowId} AND v.number = ${number}`.pipe(
          decodeRows("workflow_versions", Schema.Struct({ dag_definition: Schema.Unknown, config_snapshot: Schema.Unknown, current_config: Schema.Unknown }))
        ).pipe(
          Effect.map((rows) => {
            const row = rows[0]
            if (row === undefined) return undefined
            const fixed = row.config_snapshot !== null
            return { dag: row.dag_definition, config: fixed ? row.config_snapshot : row.current_config, fixed }
          }),
          Effect.orDie
        )
    }
  })
)
