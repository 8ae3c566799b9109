import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { decodeRows, JsonArrayOf, JsonObjectOf, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import type { DagDefinition } from "../../schemas/Dag.js"
import { UserId, WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import type { Version } from "../../schemas/Version.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"

export const VersionRow = Schema.Struct({
  workflow_id: WorkflowId,
  number: Schema.Number,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  dag_definition: JsonObjectOf<DagDefinition>(),
  config_snapshot: Schema.NullOr(JsonObjectOf<WorkflowConfig>()),
  exposed_outputs: Schema.NullOr(JsonArrayOf<{ name: string; value: string; exposed: boolean }>()),
  knowledge_base_snapshot: Schema.NullOr(
    JsonArrayOf<{ knowledge_base_id: string; documents: ReadonlyArray<{ document_id: string; content_hash: string }> }>()
  ),
  published_at: Schema.NullOr(Timestamp),
  active: Schema.Boolean,
  reverted_from: Schema.NullOr(Schema.Number),
  saved_by: Schema.NullOr(UserId),
  published_by: Schema.NullOr(UserId),
  created_at: Timestamp
})
export type VersionRow = typeof VersionRow.Type

const versionRows = decodeRows("workflow_versions", VersionRow)

export const toSummary = (row: VersionRow) => ({
  workflow_id: row.workflow_id,
  number: row.number,
  ...(row.name !== null ? { name: row.name } : {}),
  ...(row.description !== null ? { description: row.description } : {}),
  ...(row.published_at !== null ? { published_at: row.published_at } : {}),
  active: row.active,
  ...(row.reverted_from !== null ? { reverted_from: row.reverted_from } : {}),
  saved_by: row.saved_by,
  ...(row.published_by !== null ? { published_by: row.published_by } : {}),
  created_at: row.created_at
})

export const toVersion = (row: VersionRow): Version => ({
  ...toSummary(row),
  dag_definition: row.dag_definition,
  ...(row.config_snapshot !== null ? { config_snapshot: row.config_snapshot } : {}),
  ...(row.exposed_outputs !== null ? { exposed_outputs: row.exposed_outputs } : {}),
  ...(row.knowledge_base_snapshot !== null ? { knowledge_base_snapshot: row.knowledge_base_snapshot } : {})
})

export interface NewVersion {
  readonly number: number
  readonly dag_definition: DagDefinition
  readonly saved_by: string | null
  readonly reverted_from?: number | null
  readonly config_snapshot?: WorkflowConfig | null
  readonly exposed_outputs?: VersionRow["exposed_outputs"]
  readonly knowledge_base_snapshot?: VersionRow["knowledge_base_snapshot"]
  readonly published_at?: Date | null
  readonly published_by?: string | null
  readonly active?: boolean
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v))

/** SQL for workflow versions; the tenant always comes from the caller. */
export class VersionsRepo extends Effect.Service<VersionsRepo>()("VersionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (scope: { readonly tenantId: string }, workflowId: string, v: NewVersion) =>
      sql`INSERT INTO workflow_versions ${
        sql.insert({
          workflow_id: workflowId,
          tenant_id: scope.tenantId,
          number: v.number,
          dag_definition: JSON.stringify(v.dag_definition),
          saved_by: v.saved_by,
          reverted_from: v.reverted_from ?? null,
          config_snapshot: json(v.config_snapshot),
          exposed_outputs: json(v.exposed_outputs),
          knowledge_base_snapshot: json(v.knowledge_base_snapshot),
          published_at: v.published_at ?? null,
          published_by: v.published_by ?? null,
          active: v.active ?? false
        })
      } RETURNING *`.pipe(versionRows).pipe(Effect.map((rows) => rows[0]))

    const get = (scope: Principal, workflowId: string, number: number) =>
      sql`SELECT * FROM workflow_versions
        WHERE tenant_id = ${scope.tenantId} AND workflow_id = ${workflowId} AND number = ${number}`.pipe(versionRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )

    const list = (scope: Principal, workflowId: string, limit: number, offset: number) =>
      Effect.all([
        sql`SELECT * FROM workflow_versions WHERE tenant_id = ${scope.tenantId} AND workflow_id = ${workflowId}
          ORDER BY number DESC LIMIT ${limit} OFFSET ${offset}`.pipe(versionRows),
        sql`SELECT count(*)::int AS total FROM workflow_versions
          WHERE tenant_id = ${scope.tenantId} AND workflow_id = ${workflowId}`.pipe(decodeRows("workflow_versions", Schema.Struct({ total: Schema.Number })))
      ]).pipe(Effect.map(([rows, [c]]) => ({ rows, total: c?.total ?? 0 })))

    /** Stamps a draft as published with its snapshots and makes it the single active version. */
    const activate = (
      scope: Principal,
      workflowId: string,
      number: number,
      stamp: {
        config_snapshot: WorkflowConfig
        exposed_outputs: VersionRow["exposed_outputs"]
        knowledge_base_snapshot: VersionRow["knowledge_base_snapshot"]
      } | undefined
    ) =>
      Effect.gen(function*() {
        yield* sql`UPDATE workflow_versions SET active = false
          WHERE tenant_id = ${scope.tenantId} AND workflow_id = ${workflowId} AND active AND number <> ${number}`
        const rows = stamp === undefined
          ? yield* sql`UPDATE workflow_versions SET active = true
              WHERE tenant_id = ${scope.tenantId} AND workflow_id = ${workflowId} AND number = ${number}
                AND published_at IS NOT NULL RETURNING *`.pipe(versionRows)
          : yield* sql`UPDATE workflow_versions SET active = true, published_at = now(),
              published_by = ${scope.userId},
              config_snapshot = ${JSON.stringify(stamp.config_snapshot)},
              exposed_outputs = ${JSON.stringify(stamp.exposed_outputs)},
              knowledge_base_snapshot = ${JSON.stringify(stamp.knowledge_base_snapshot)}
              WHERE tenant_id = ${scope.tenantId} AND workflow_id = ${workflowId} AND number = ${number} RETURNING *`.pipe(versionRows)
        return rows[0]
      })

    const rename = (scope: Principal, workflowId: string, number: number, patch: {
      name?: string | null | undefined
      description?: string | null | undefined
    }) =>
      sql`UPDATE workflow_versions SET
          name = ${patch.name === undefined ? sql`name` : patch.name},
          description = ${patch.description === undefined ? sql`description` : patch.description}
        WHERE tenant_id = ${scope.tenantId} AND workflow_id = ${workflowId} AND number = ${number} RETURNING *`.pipe(versionRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )

    const remove = (scope: Principal, workflowId: string, number: number) =>
      sql`DELETE FROM workflow_versions WHERE tenant_id = ${scope.tenantId} AND workflow_id = ${workflowId}
        AND number = ${number} AND NOT active RETURNING number`.pipe(Effect.map((rows) => rows.length > 0))

    return traced("VersionsRepo", { insert, get, list, activate, rename, remove })
  })
}) {}
