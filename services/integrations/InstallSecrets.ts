import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"

export const credentialsAad = (integrationId: string, capability: string) => `integration:${integrationId}:${capability}`

export const ConnectionRow = Schema.Struct({
  integration_id: Schema.UUID,
  user_id: Schema.String,
  sealed: Schema.String,
  scope: Schema.NullOr(Schema.String),
  expires_at: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type ConnectionRow = typeof ConnectionRow.Type
export const connectionRows = decodeRows("integration_connections", ConnectionRow)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * What an install holds in secret (its credentials, its users' OAuth connections), read only
 * through the workspace that owns the install: every statement joins the install on the caller's
 * tenant, so an integration id from a request body or a configuration never reaches another
 * workspace's secrets, whichever call site passes it.
 */
export class InstallSecrets extends Effect.Service<InstallSecrets>()("InstallSecrets", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* CredentialsCipher

    /** The install's credentials (the agent_tool capability first), opened; none when it is not the tenant's or holds none. */
    const credentials = (tenantId: string, integrationId: string) =>
      Effect.gen(function*() {
        if (!UUID.test(integrationId)) return Option.none<Record<string, unknown>>()
        const [stored] = yield* sql`SELECT c.capability, c.sealed FROM integration_credentials c
          JOIN tenant_integrations i ON i.id = c.integration_id AND i.tenant_id = ${tenantId}
          WHERE c.integration_id = ${integrationId} ORDER BY (c.capability = 'agent_tool') DESC, c.capability LIMIT 1`.pipe(
          decodeRows("integration_credentials", Schema.Struct({ capability: Schema.String, sealed: Schema.String }))
        )
        if (stored === undefined) return Option.none<Record<string, unknown>>()
        const plain = yield* cipher.decrypt(stored.sealed, credentialsAad(integrationId, stored.capability))
        return Option.some(JSON.parse(plain) as Record<string, unknown>)
      }).pipe(Effect.orDie)

    /** A user's OAuth connection to the tenant's install. */
    const connection = (tenantId: string, integrationId: string, userId: string) =>
      UUID.test(integrationId)
        ? sql`SELECT c.* FROM integration_connections c JOIN tenant_integrations i ON i.id = c.integration_id AND i.tenant_id = ${tenantId}
            WHERE c.integration_id = ${integrationId} AND c.user_id = ${userId}`.pipe(
          connectionRows,
          Effect.orDie,
          Effect.map((rows) => Option.fromNullable(rows[0]))
        )
        : Effect.succeed(Option.none<ConnectionRow>())

    /** Whether the install is the tenant's. */
    const owns = (tenantId: string, integrationId: string) =>
      UUID.test(integrationId)
        ? sql`SELECT 1 FROM tenant_integrations WHERE tenant_id = ${tenantId} AND id = ${integrationId}`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
        : Effect.succeed(false)

    return traced("InstallSecrets", { credentials, connection, owns })
  })
}) {}
