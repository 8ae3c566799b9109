import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import { conflict, notFound } from "../../schemas/Errors.js"
import type { TenantIntegration } from "../../schemas/Integration.js"
import type { Principal } from "../../schemas/Principal.js"
import { CatalogRepo } from "./CatalogRepo.js"
import { credentialsAad } from "./InstallSecrets.js"

const InstallRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  catalog_id: Schema.UUID,
  name: Schema.String,
  display_name: Schema.String,
  category: Schema.String,
  package: Schema.NullOr(Schema.String),
  status: Schema.Literal("active", "disabled", "pending"),
  enabled_functions: Schema.Array(Schema.String),
  capabilities: Schema.Array(Schema.String),
  connections: Schema.Number,
  created_at: Timestamp
})
type InstallRow = typeof InstallRow.Type
const installRows = decodeRows("tenant_integrations", InstallRow)

const toInstall = (row: InstallRow): TenantIntegration => ({
  id: row.id,
  catalog_id: row.catalog_id,
  name: row.name,
  display_name: row.display_name,
  category: row.category,
  package: row.package,
  status: row.status,
  enabled_functions: row.enabled_functions,
  has_data_source_credentials: row.capabilities.includes("data_source"),
  has_agent_tool_credentials: row.capabilities.includes("agent_tool"),
  has_active_connections: row.connections > 0,
  created_at: row.created_at
})

/** The sealing context of an install's credentials: a sealed value moved to another row does not open. */

/** Installs of catalog entries in a workspace: credentials by capability, functions on and off. */
export class Installs extends Effect.Service<Installs>()("Installs", {
  dependencies: [CatalogRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const catalog = yield* CatalogRepo
    const cipher = yield* CredentialsCipher

    const select = sql`SELECT i.id, i.tenant_id, i.catalog_id, e.name, e.display_name, e.category, i.package, i.status, i.enabled_functions,
        i.created_at,
        ARRAY(SELECT capability FROM integration_credentials c WHERE c.integration_id = i.id ORDER BY capability) AS capabilities,
        (SELECT count(*)::int FROM integration_connections o WHERE o.integration_id = i.id) AS connections
      FROM tenant_integrations i JOIN catalog_entries e ON e.id = i.catalog_id`

    const find = (principal: Principal, id: string) =>
      sql`${select} WHERE i.tenant_id = ${principal.tenantId} AND i.id = ${id}`.pipe(
        installRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Integration")) : Effect.succeed(rows[0]))
      )

    const list = (principal: Principal) =>
      Effect.zipRight(
        requireReader(principal),
        sql`${select} WHERE i.tenant_id = ${principal.tenantId} ORDER BY e.name`.pipe(installRows, Effect.orDie)
      ).pipe(Effect.map((rows) => ({ items: rows.map(toInstall) })))

    const install = (principal: Principal, catalogId: string, pkg: string | undefined) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        if (Option.isNone(yield* catalog.get(principal.tenantId, catalogId))) return yield* notFound("Catalog entry")
        const id = randomUUID()
        const inserted = yield* sql`INSERT INTO tenant_integrations ${
          sql.insert({ id, tenant_id: principal.tenantId, catalog_id: catalogId, package: pkg ?? null, created_by: principal.userId })
        } ON CONFLICT (tenant_id, catalog_id) DO NOTHING RETURNING id`.pipe(Effect.orDie)
        if (inserted.length === 0) return yield* conflict("INTEGRATION_ALREADY_INSTALLED", "This catalog entry is already installed in the workspace")
        return toInstall(yield* find(principal, id))
      })

    const uninstall = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* find(principal, id)
        yield* sql`DELETE FROM tenant_integrations WHERE id = ${id}`.pipe(Effect.orDie)
      })

    const setCredentials = (principal: Principal, id: string, capability: string, credentials: Record<string, unknown>) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* find(principal, id)
        const sealed = yield* cipher.encrypt(JSON.stringify(credentials), credentialsAad(id, capability))
        yield* sql`INSERT INTO integration_credentials ${sql.insert({ integration_id: id, capability, sealed })}
          ON CONFLICT (integration_id, capability) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = now()`.pipe(Effect.orDie)
      })

    const setFunction = (principal: Principal, id: string, name: string, enabled: boolean) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const row = yield* find(principal, id)
        const functions = yield* catalog.functionsOf([row.catalog_id])
        if (!functions.some((f) => f.name === name)) return yield* notFound("Function")
        yield* (enabled
          ? sql`UPDATE tenant_integrations SET enabled_functions = array_append(enabled_functions, ${name})
              WHERE id = ${id} AND NOT (${name} = ANY(enabled_functions))`
          : sql`UPDATE tenant_integrations SET enabled_functions = array_remove(enabled_functions, ${name}) WHERE id = ${id}`).pipe(Effect.orDie)
      })

    const capabilities = (principal: Principal) =>
      Effect.map(list(principal), ({ items }) => ({
        items: items.map((i) => ({
          integration_id: i.id,
          name: i.name,
          category: i.category,
          capabilities: ["data_source", "agent_tool"] as const,
          configured: [
            ...(i.has_data_source_credentials ? ["data_source" as const] : []),
            ...(i.has_agent_tool_credentials ? ["agent_tool" as const] : [])
          ]
        }))
      }))

    return traced("Installs", {
      list,
      get: (principal: Principal, id: string) => Effect.zipRight(requireReader(principal), Effect.map(find(principal, id), toInstall)),
      install,
      uninstall,
      setCredentials,
      enableFunction: (principal: Principal, id: string, name: string) => setFunction(principal, id, name, true),
      disableFunction: (principal: Principal, id: string, name: string) => setFunction(principal, id, name, false),
      capabilities
    })
  })
}) {}
