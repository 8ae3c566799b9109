import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { PreparedSql } from "../../platform/PreparedSql.js"
import { decodeRows, JsonObjectOf, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { makeTtlCache } from "../../platform/TtlCache.js"
import type { DagDefinition } from "../../schemas/Dag.js"
import { notFound } from "../../schemas/Errors.js"
import { TenantId, UserId, WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { InteractionType, type Workflow, type WorkflowConfig } from "../../schemas/Workflow.js"
import { defaultWorkflowConfig } from "../../schemas/Workflow.js"

export const WorkflowRow = Schema.Struct({
  id: WorkflowId,
  tenant_id: TenantId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  interaction_type: InteractionType,
  status: Schema.Literal("draft", "published"),
  latest_version: Schema.Number,
  active_version: Schema.NullOr(Schema.Number),
  icon: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  dag_definition: JsonObjectOf<DagDefinition>(),
  config: JsonObjectOf<Partial<WorkflowConfig>>(),
  knowledge_base_ids: Schema.Array(Schema.String),
  /** `<node id>:<preset>` of steps that may keep a retired preset (they came with a template or clone). */
  legacy_steps: Schema.Array(Schema.String),
  public_app: Schema.Boolean,
  archived_at: Schema.NullOr(Timestamp),
  adopted_at: Schema.NullOr(Timestamp),
  adopted_from_workflow_id: Schema.NullOr(WorkflowId),
  created_by: Schema.NullOr(UserId),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type WorkflowRow = typeof WorkflowRow.Type

const workflowRows = decodeRows("workflows", WorkflowRow)

export const configOf = (row: WorkflowRow): WorkflowConfig => ({ ...defaultWorkflowConfig, ...row.config })

/** Draft: never published; Published: the active version is the latest; else unpublished changes. */
export const builderState = (row: Pick<WorkflowRow, "active_version" | "latest_version">) =>
  row.active_version === null
    ? "draft" as const
    : row.active_version === row.latest_version
    ? "published" as const
    : "unpublished_changes" as const

export const toWorkflow = (row: WorkflowRow): Workflow => ({
  id: row.id,
  tenant_id: row.tenant_id,
  name: row.name,
  ...(row.description !== null ? { description: row.description } : {}),
  interaction_type: row.interaction_type,
  status: row.status,
  latest_version: row.latest_version,
  ...(row.active_version !== null ? { active_version: row.active_version } : {}),
  builder_state: builderState(row),
  ...(row.icon !== null ? { icon: row.icon } : {}),
  ...(row.category !== null ? { category: row.category } : {}),
  dag_definition: row.dag_definition,
  knowledge_base_ids: row.knowledge_base_ids,
  public_app: row.public_app,
  archived: row.archived_at !== null,
  ...(row.archived_at !== null ? { archived_at: row.archived_at } : {}),
  ...(row.adopted_at !== null ? { adopted_at: row.adopted_at } : {}),
  ...(row.adopted_from_workflow_id !== null ? { adopted_from_workflow_id: row.adopted_from_workflow_id } : {}),
  created_by: row.created_by,
  created_at: row.created_at,
  updated_at: row.updated_at
})

export interface ListFilter {
  readonly offset: number
  readonly limit: number
  readonly archived: boolean
  readonly interactionType?: InteractionType | undefined
  readonly q?: string | undefined
}

/** Column values a save may change; undefined leaves a column alone. */
export interface WorkflowChanges {
  readonly name?: string | undefined
  readonly description?: string | null | undefined
  readonly interaction_type?: InteractionType | undefined
  readonly icon?: string | null | undefined
  readonly category?: string | null | undefined
  readonly dag_definition?: DagDefinition | undefined
  readonly knowledge_base_ids?: ReadonlyArray<string> | undefined
  readonly public_app?: boolean | undefined
  readonly config?: WorkflowConfig | undefined
  readonly latest_version?: number | undefined
  readonly active_version?: number | undefined
  readonly status?: "draft" | "published" | undefined
}

/** SQL for AI Employees; every statement is scoped to the caller's tenant. */
/** Whether the caller's tenant has this AI Employee, unarchived: read on every run start (prepared). */
const VISIBLE = `SELECT archived_at IS NOT NULL AS archived, name, active_version, latest_version FROM workflows WHERE tenant_id = $1 AND id = $2`

export class WorkflowsRepo extends Effect.Service<WorkflowsRepo>()("WorkflowsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prepared = yield* PreparedSql
    const first = (rows: ReadonlyArray<WorkflowRow>) => Option.fromNullable(rows[0])
    const heads = makeTtlCache<{ name: string; activeVersion: number | null; latestVersion: number }>({ ttlMs: 30_000, capacity: 10_000 })

    const insert = (scope: { readonly tenantId: TenantId }, row: {
      id: string
      name: string
      description: string | null
      interaction_type: InteractionType
      icon: string | null
      category: string | null
      dag_definition: DagDefinition
      config: WorkflowConfig
      knowledge_base_ids: ReadonlyArray<string>
      legacy_steps?: ReadonlyArray<string>
      latest_version: number
      active_version?: number | null
      status?: "draft" | "published"
      adopted_at?: Date | null
      adopted_from_workflow_id?: string | null
      created_by: string | null
    }) =>
      sql`INSERT INTO workflows ${
        sql.insert({
          ...row,
          tenant_id: scope.tenantId,
          dag_definition: JSON.stringify(row.dag_definition),
          config: JSON.stringify(row.config),
          knowledge_base_ids: JSON.stringify(row.knowledge_base_ids),
          legacy_steps: JSON.stringify(row.legacy_steps ?? []),
          active_version: row.active_version ?? null,
          status: row.status ?? "draft",
          adopted_at: row.adopted_at ?? null,
          adopted_from_workflow_id: row.adopted_from_workflow_id ?? null
        })
      } RETURNING *`.pipe(workflowRows).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    /** Archived ones included: callers decide what archived means for them. */
    const get = (scope: Pick<Principal, "tenantId">, id: string) =>
      sql`SELECT * FROM workflows WHERE tenant_id = ${scope.tenantId} AND id = ${id}`.pipe(workflowRows).pipe(
        Effect.map(first),
        Effect.orDie
      )

    /** A live (not archived) AI Employee of the caller's tenant, else 404. */
    const visible = (scope: Principal, id: string) =>
      get(scope, id).pipe(
        Effect.flatMap((row) => Option.isSome(row) && row.value.archived_at === null ? Effect.succeed(row.value) : Effect.fail(notFound("AI Employee")))
      )

    /**
     * The AI Employee's name and versions, from memory when this node read them lately; undefined
     * when it is archived or not the caller's (a missing row is never kept). A run start writes its
     * run only if the row still says so (RunRequest.asRead, `check_head`), so a copy gone stale
     * costs a second try, never a run of the wrong version.
     */
    const head = (tenantId: string, id: string) =>
      heads.get(
        `${tenantId}:${id}`,
        prepared.query<{ archived: boolean; name: string; active_version: number | null; latest_version: number }>(VISIBLE, [tenantId, id]).pipe(
          Effect.orDie,
          Effect.flatMap((rows) =>
            rows[0] !== undefined && !rows[0].archived
              ? Effect.succeed({ name: rows[0].name, activeVersion: rows[0].active_version, latestVersion: rows[0].latest_version })
              : Effect.fail(notFound("AI Employee"))
          )
        )
      ).pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))

    /** `visible` reading only what a run start needs (`head`), else 404. */
    const requireVisible = (scope: Principal, id: string) =>
      Effect.flatMap(head(scope.tenantId, id), (found) => found === undefined ? Effect.fail(notFound("AI Employee")) : Effect.succeed(found))

    /** Drops this node's copy of the row (after a write here, or when a run start found it stale). */
    const forgetHead = (scope: { readonly tenantId: string }, id: string) => Effect.sync(() => heads.delete(`${scope.tenantId}:${id}`))

    /** Inside a transaction: the row, locked against concurrent saves and publishes. */
    const lock = (scope: Principal, id: string) =>
      sql`SELECT * FROM workflows WHERE tenant_id = ${scope.tenantId} AND id = ${id} FOR UPDATE`.pipe(workflowRows).pipe(
        Effect.map(first)
      )

    const update = (scope: Principal, id: string, changes: WorkflowChanges) => {
      const set: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined) continue
        set[key] = key === "dag_definition" || key === "config" || key === "knowledge_base_ids"
          ? JSON.stringify(value)
          : value
      }
      return sql`UPDATE workflows SET ${sql.update({ ...set, updated_at: new Date() })}
        WHERE tenant_id = ${scope.tenantId} AND id = ${id} RETURNING *`.pipe(workflowRows).pipe(
        Effect.map((rows) => rows[0]),
        Effect.zipLeft(forgetHead(scope, id))
      )
    }

    const setArchived = (scope: Principal, id: string, archived: boolean) =>
      sql`UPDATE workflows SET archived_at = ${archived ? sql`now()` : null}, updated_at = now()
        WHERE tenant_id = ${scope.tenantId} AND id = ${id}
          AND archived_at IS ${archived ? sql`NULL` : sql`NOT NULL`} RETURNING *`.pipe(workflowRows).pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.zipLeft(forgetHead(scope, id))
      )

    const list = (scope: Principal, filter: ListFilter) => {
      const q = filter.q?.trim()
      const where = sql.and([
        sql`tenant_id = ${scope.tenantId}`,
        filter.archived ? sql`archived_at IS NOT NULL` : sql`archived_at IS NULL`,
        ...(filter.interactionType !== undefined ? [sql`interaction_type = ${filter.interactionType}`] : []),
        ...(q !== undefined && q !== ""
          ? [sql`((name || ' ' || coalesce(description, '')) ILIKE ${"%" + q.replace(/[\\%_]/g, "\\$&") + "%"}
               OR word_similarity(${q}, name || ' ' || coalesce(description, '')) > 0.3)`]
          : [])
      ])
      const order = q !== undefined && q !== ""
        ? sql`word_similarity(${q}, name || ' ' || coalesce(description, '')) DESC, updated_at DESC, id`
        : sql`updated_at DESC, id`
      return Effect.all([
        sql`SELECT * FROM workflows WHERE ${where} ORDER BY ${order} LIMIT ${filter.limit} OFFSET ${filter.offset}`.pipe(workflowRows),
        sql`SELECT count(*)::int AS total FROM workflows WHERE ${where}`.pipe(decodeRows("workflows", Schema.Struct({ total: Schema.Number })))
      ]).pipe(Effect.map(([rows, [c]]) => ({ rows, total: c?.total ?? 0 })), Effect.orDie)
    }

    /** Published, live AI Employees among `ids`, for call_aie checks. */
    const callable = (scope: Principal, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(new Set<string>())
        : sql`SELECT id FROM workflows WHERE tenant_id = ${scope.tenantId} AND id IN ${sql.in(ids)}
            AND active_version IS NOT NULL AND archived_at IS NULL`.pipe(decodeRows("workflows", Schema.Struct({ id: Schema.String }))).pipe(
          Effect.map((rows) => new Set(rows.map((r) => r.id))),
          Effect.orDie
        )

    return traced("WorkflowsRepo", { insert, get, visible, head, requireVisible, forgetHead, lock, update, setArchived, list, callable })
  })
}) {}
