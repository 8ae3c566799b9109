import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { ApiKey, type OperationScope, type ResourceScope } from "../../schemas/Auth.js"
import { type ApiKeyId, TenantId, type UserId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { Role } from "../../schemas/Roles.js"

/** `ApiKey` as stored: its dates as pg hands them over, its tenant and a system key's role. */
const { revoked: _revoked, ...apiKeyFields } = ApiKey.fields
export const ApiKeyRow = Schema.typeSchema(Schema.Struct({
  ...apiKeyFields,
  tenant_id: TenantId,
  system_role: Schema.NullOr(Role)
}))
export type ApiKeyRow = typeof ApiKeyRow.Type

const apiKeyRows = decodeRows("api_keys", ApiKeyRow)

export const toApiKey = ({ tenant_id: _t, system_role: _s, ...row }: ApiKeyRow): ApiKey => ({
  ...row,
  revoked: row.revoked_at !== null
})

const columns = (sql: SqlClient.SqlClient) =>
  sql`id, tenant_id, owner_user_id, name, key_prefix, key_type, system_role, operation_scope, resource_scope,
      expires_at, revoked_at, last_used_at, created_at`

export class ApiKeysRepo extends Effect.Service<ApiKeysRepo>()("ApiKeysRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const json = (v: ReadonlyArray<string> | null | undefined) => (v === null || v === undefined ? null : JSON.stringify(v))

    const insert = (scope: Principal, key: {
      id: string
      name: string
      key_hash: string
      key_prefix: string
      key_type: "user" | "system"
      system_role: Role | null
      operation_scope: OperationScope | null | undefined
      resource_scope: ResourceScope | null | undefined
      expires_at: Date | null | undefined
    }) =>
      sql`INSERT INTO api_keys ${
        sql.insert({
          ...key,
          tenant_id: scope.tenantId,
          owner_user_id: scope.userId,
          operation_scope: json(key.operation_scope),
          resource_scope: json(key.resource_scope),
          expires_at: key.expires_at ?? null
        })
      } RETURNING ${columns(sql)}`.pipe(apiKeyRows).pipe(Effect.map((rows) => rows[0]!), Effect.orDie)

    const list = (scope: Principal, params: PageParams) =>
      Effect.all([
        sql`SELECT ${columns(sql)} FROM api_keys WHERE tenant_id = ${scope.tenantId}
          ORDER BY created_at DESC, id LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(apiKeyRows),
        sql<{ total: number }>`SELECT count(*)::int AS total FROM api_keys WHERE tenant_id = ${scope.tenantId}`
      ]).pipe(Effect.map(([rows, [c]]) => ({ items: rows, total: c?.total ?? 0 })), Effect.orDie)

    const get = (scope: Principal, id: ApiKeyId) =>
      sql`SELECT ${columns(sql)} FROM api_keys WHERE tenant_id = ${scope.tenantId} AND id = ${id}`.pipe(apiKeyRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const update = (scope: Principal, id: ApiKeyId, patch: {
      name?: string | undefined
      operation_scope?: OperationScope | null | undefined
      resource_scope?: ResourceScope | null | undefined
    }) =>
      sql`UPDATE api_keys SET
          name = ${patch.name === undefined ? sql`name` : patch.name},
          operation_scope = ${patch.operation_scope === undefined ? sql`operation_scope` : json(patch.operation_scope)},
          resource_scope = ${patch.resource_scope === undefined ? sql`resource_scope` : json(patch.resource_scope)}
        WHERE tenant_id = ${scope.tenantId} AND id = ${id} RETURNING ${columns(sql)}`.pipe(apiKeyRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const revoke = (scope: Principal, id: ApiKeyId) =>
      sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
        WHERE tenant_id = ${scope.tenantId} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    /** Lookup by hash for authentication: the only unscoped read, since the key names its tenant. */
    const byHash = (hash: string) =>
      sql<ApiKeyRow & { owner_user_id: UserId }>`SELECT ${columns(sql)} FROM api_keys WHERE key_hash = ${hash}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const touch = (id: string) =>
      sql`UPDATE api_keys SET last_used_at = now()
        WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    return { insert, list, get, update, revoke, byHash, touch }
  })
}) {}
