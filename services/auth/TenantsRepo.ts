import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { TenantId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOffset } from "../../schemas/Pagination.js"
import type { Tenant, TenantSettings } from "../../schemas/Tenant.js"
import { defaultTenantSettings } from "../../schemas/Tenant.js"

interface TenantRow {
  readonly id: TenantId
  readonly name: string
  readonly slug: string
  readonly settings: Partial<TenantSettings>
  readonly created_at: Date
}

export const toTenant = (row: TenantRow): Tenant => ({
  ...row,
  settings: { ...defaultTenantSettings, ...row.settings }
})

/** Tenants are the one platform-level table: only env_admin operations list or create them. */
export class TenantsRepo extends Effect.Service<TenantsRepo>()("TenantsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (tenant: { id: string; name: string; slug: string }) =>
      sql<TenantRow>`INSERT INTO tenants ${sql.insert({ ...tenant, settings: "{}" })}
        ON CONFLICT (slug) DO NOTHING RETURNING *`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toTenant)),
        Effect.orDie
      )

    const byId = (id: string) =>
      sql<TenantRow>`SELECT * FROM tenants WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toTenant)),
        Effect.orDie
      )

    const bySlug = (slug: string) =>
      sql<TenantRow>`SELECT * FROM tenants WHERE slug = ${slug}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toTenant)),
        Effect.orDie
      )

    const list = (params: PageParams) =>
      Effect.all([
        sql<TenantRow>`SELECT * FROM tenants ORDER BY created_at, id LIMIT ${params.page_size}
          OFFSET ${pageOffset(params)}`,
        sql<{ total: number }>`SELECT count(*)::int AS total FROM tenants`
      ]).pipe(Effect.map(([rows, [count]]) => ({ items: rows.map(toTenant), total: count?.total ?? 0 })), Effect.orDie)

    const mergeSettings = (id: string, patch: { readonly [K in keyof TenantSettings]?: boolean | undefined }) =>
      sql<TenantRow>`UPDATE tenants SET settings = settings || ${JSON.stringify(patch)}::jsonb
        WHERE id = ${id} RETURNING *`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toTenant)),
        Effect.orDie
      )

    const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM tenants`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.orDie
    )

    return { insert, byId, bySlug, list, mergeSettings, count }
  })
}) {}
