import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { decodeRows, JsonObjectOf, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { TenantId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOffset } from "../../schemas/Pagination.js"
import type { Tenant, TenantSettings } from "../../schemas/Tenant.js"
import { defaultTenantSettings } from "../../schemas/Tenant.js"
import { AuthReads } from "./AuthReads.js"

const TenantRow = Schema.Struct({
  id: TenantId,
  name: Schema.String,
  slug: Schema.String,
  settings: JsonObjectOf<Partial<TenantSettings>>(),
  created_at: Timestamp
})
type TenantRow = typeof TenantRow.Type

const tenantRows = decodeRows("tenants", TenantRow)

export const toTenant = (row: TenantRow): Tenant => ({
  ...row,
  settings: { ...defaultTenantSettings, ...row.settings }
})

/** Tenants are the one platform-level table: only env_admin operations list or create them. */
export class TenantsRepo extends Effect.Service<TenantsRepo>()("TenantsRepo", {
  dependencies: [AuthReads.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const authReads = yield* AuthReads

    const insert = (tenant: { id: string; name: string; slug: string }) =>
      sql`INSERT INTO tenants ${sql.insert({ ...tenant, settings: "{}" })}
        ON CONFLICT (slug) DO NOTHING RETURNING *`.pipe(tenantRows).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toTenant)),
        Effect.orDie
      )

    const byId = (id: string) =>
      sql`SELECT * FROM tenants WHERE id = ${id}`.pipe(tenantRows).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toTenant)),
        Effect.orDie
      )

    const bySlug = (slug: string) =>
      sql`SELECT * FROM tenants WHERE slug = ${slug}`.pipe(tenantRows).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toTenant)),
        Effect.orDie
      )

    const list = (params: PageParams) =>
      Effect.all([
        sql`SELECT * FROM tenants ORDER BY created_at, id LIMIT ${params.page_size}
          OFFSET ${pageOffset(params)}`.pipe(tenantRows),
        sql`SELECT count(*)::int AS total FROM tenants`.pipe(decodeRows("tenants", Schema.Struct({ total: Schema.Number })))
      ]).pipe(Effect.map(([rows, [count]]) => ({ items: rows.map(toTenant), total: count?.total ?? 0 })), Effect.orDie)

    const mergeSettings = (id: string, patch: { readonly [K in keyof TenantSettings]?: TenantSettings[K] | undefined }) =>
      sql`UPDATE tenants SET settings = settings || ${JSON.stringify(patch)}::jsonb
        WHERE id = ${id} RETURNING *`.pipe(tenantRows).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toTenant)),
        Effect.orDie,
        // Every signed-in request carries its tenant's settings.
        Effect.tap(() => authReads.changed)
      )

    const count = sql`SELECT count(*)::int AS n FROM tenants`.pipe(decodeRows("tenants", Schema.Struct({ n: Schema.Number }))).pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.orDie
    )

    return traced("TenantsRepo", { insert, byId, bySlug, list, mergeSettings, count })
  })
}) {}
