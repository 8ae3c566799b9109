import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { PreparedSql } from "../../platform/PreparedSql.js"
import { decodeRows, JsonObjectOf } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { ApiKey, type OperationScope, type ResourceScope, type WidgetScope } from "../../schemas/Auth.js"
import { type ApiKeyId, TenantId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { Role } from "../../schemas/Roles.js"
import type { TenantSettings } from "../../schemas/Tenant.js"
import { AuthReads } from "./AuthReads.js"

/** `ApiKey` as stored: its dates as pg hands them over, its tenant and a system key's role. */
const { revoked: _revoked, ...apiKeyFields } = ApiKey.fields
export const ApiKeyRow = Schema.typeSchema(Schema.Struct({
  ...apiKeyFields,
  tenant_id: TenantId,
  system_role: Schema.NullOr(Role)
}))
export type ApiKeyRow = typeof ApiKeyRow.Type

const apiKeyRows = decodeRows("api_keys", ApiKeyRow)

/** What authentication needs of a key owner's membership, tenant and user. */
export const KeyOwner = Schema.Struct({
  email: Schema.String,
  name: Schema.String,
  totp_enabled: Schema.Boolean,
  role: Role,
  status: Schema.Literal("active", "disabled"),
  settings: JsonObjectOf<Partial<TenantSettings>>()
})
export type KeyOwner = typeof KeyOwner.Type

/** The owner is null when they no longer belong to the key's tenant. */
const ownerRows = decodeRows("api_keys", Schema.Struct({ owner: Schema.NullOr(KeyOwner) }))

export const toApiKey = ({ tenant_id: _t, system_role: _s, ...row }: ApiKeyRow): ApiKey => ({
  ...row,
  revoked: row.revoked_at !== null
})

const columns = (sql: SqlClient.SqlClient) =>
  sql`id, tenant_id, owner_user_id, name, key_prefix, key_type, system_role, operation_scope, resource_scope, widget,
      expires_at, revoked_at, last_used_at, created_at`

/**
 * A key by its hash with what authentication needs of its owner's membership, tenant and user, in
 * one read (a prepared statement: it runs on every request authenticated by a key).
 */
const BY_HASH = `SELECT k.id, k.tenant_id, k.owner_user_id, k.name, k.key_prefix, k.key_type, k.system_role, k.operation_scope,
    k.resource_scope, k.widget, k.expires_at, k.revoked_at, k.last_used_at, k.created_at,
    CASE WHEN m.user_id IS NULL THEN NULL ELSE jsonb_build_object('email', u.email, 'name', u.name,
      'totp_enabled', u.totp_enabled, 'role', m.role, 'status', m.status, 'settings', t.settings) END AS owner
  FROM api_keys k
  LEFT JOIN memberships m ON m.tenant_id = k.tenant_id AND m.user_id = k.owner_user_id
  LEFT JOIN tenants t ON t.id = m.tenant_id
  LEFT JOIN users u ON u.id = m.user_id
  WHERE k.key_hash = $1`

export class ApiKeysRepo extends Effect.Service<ApiKeysRepo>()("ApiKeysRepo", {
  dependencies: [AuthReads.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prepared = yield* PreparedSql
    const authReads = yield* AuthReads
    const byHashCache = authReads.cache<Option.Option<{ key: ApiKeyRow; owner: KeyOwner | null }>>()
    // When this node last recorded a key's use: the cached row's last_used_at stays as it was read.
    const touched = new Map<string, number>()
    const json = (v: ReadonlyArray<string> | WidgetScope | null | undefined) => (v === null || v === undefined ? null : JSON.stringify(v))

    const insert = (scope: Principal, key: {
      id: string
      name: string
      key_hash: string
      key_prefix: string
      key_type: "user" | "system"
      system_role: Role | null
      operation_scope: OperationScope | null | undefined
      resource_scope: ResourceScope | null | undefined
      widget: WidgetScope | null | undefined
      expires_at: Date | null | undefined
    }) =>
      sql`INSERT INTO api_keys ${
        sql.insert({
          ...key,
          tenant_id: scope.tenantId,
          owner_user_id: scope.userId,
          operation_scope: json(key.operation_scope),
          resource_scope: json(key.resource_scope),
          widget: json(key.widget),
          expires_at: key.expires_at ?? null
        })
      } RETURNING ${columns(sql)}`.pipe(apiKeyRows).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    const list = (scope: Principal, params: PageParams) =>
      Effect.all([
        sql`SELECT ${columns(sql)} FROM api_keys WHERE tenant_id = ${scope.tenantId}
          ORDER BY created_at DESC, id LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(apiKeyRows),
        sql`SELECT count(*)::int AS total FROM api_keys WHERE tenant_id = ${scope.tenantId}`.pipe(
          decodeRows("api_keys", Schema.Struct({ total: Schema.Number }))
        )
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
        Effect.orDie,
        Effect.tap(() => authReads.changed)
      )

    const revoke = (scope: Principal, id: ApiKeyId) =>
      sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
        WHERE tenant_id = ${scope.tenantId} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie,
        Effect.tap(() => authReads.changed)
      )

    /**
     * Lookup by hash for authentication, with the owner's membership, tenant settings and user in
     * the same read: the only unscoped read, since the key names its tenant.
     */
    const byHash = (hash: string) =>
      byHashCache.get(
        hash,
        prepared.query(BY_HASH, [hash]).pipe(
          Effect.flatMap((rows) => Effect.zip(apiKeyRows(Effect.succeed(rows)), ownerRows(Effect.succeed(rows)))),
          Effect.map(([keys, owners]) => keys[0] === undefined ? Option.none() : Option.some({ key: keys[0], owner: owners[0]?.owner ?? null })),
          Effect.orDie
        )
      )

    /** Records a use at most once a minute: `lastUsed` is the value just read with the key. */
    const touch = (id: string, lastUsed: Date | null) =>
      Effect.suspend(() => {
        const last = Math.max(lastUsed?.getTime() ?? 0, touched.get(id) ?? 0)
        if (Date.now() - last < 60_000) return Effect.void
        if (touched.size >= 10_000) touched.clear()
        touched.set(id, Date.now())
        return sql`UPDATE api_keys SET last_used_at = now()
          WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`.pipe(Effect.asVoid, Effect.orDie)
      })

    return traced("ApiKeysRepo", { insert, list, get, update, revoke, byHash, touch })
  })
}) {}
