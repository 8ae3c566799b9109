import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { RunnableWorkflows } from "../../runtime/run/Ports.js"
import { WorkflowsRepo } from "./WorkflowsRepo.js"

/**
 * The workflow service's side of the run kernel's port: active versions (kept ones from the
 * repository's copy of each AI Employee's row, the one its writes forget) and version snapshots.
 */
export const RunnableWorkflowsLive = Layer.effect(
  RunnableWorkflows,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WorkflowsRepo
    return {
      activeKept: (tenantId, workflowId) =>
        Effect.map(
          repo.head(tenantId, workflowId),
          (head) => head === undefined || head.activeVersion === null ? undefined : { name: head.name, version: head.activeVersion }
        ),
      forgetActive: (tenantId, workflowId) => repo.forgetHead({ tenantId }, workflowId),
      active: (tenantId, workflowId) =>
        sql`SELECT name, active_version FROM workflows
          WHERE id = ${workflowId} AND tenant_id = ${tenantId} AND archived_at IS NULL AND active_version IS NOT NULL`.pipe(
          decodeRows("workflows", Schema.Struct({ name: Schema.String, active_version: Schema.Number }))
        ).pipe(
          Effect.map((rows) => rows[0] === undefined ? undefined : { name: rows[0].name, version: rows[0].active_version }),
          Effect.orDie
        ),
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
