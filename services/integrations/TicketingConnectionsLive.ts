import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { CredentialsCipher } from "../../platform/CredentialsCipher.js"
import { TicketingConnections } from "../ports/TicketingConnections.js"
import { credentialsAad } from "./Installs.js"

const Credentials = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** The install behind a connected ticketing queue, active in the tenant, with its credentials unsealed. */
export const TicketingConnectionsLive = Layer.effect(
  TicketingConnections,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* CredentialsCipher
    return {
      lookup: (tenantId, connectionId) =>
        Effect.gen(function*() {
          const [install] = yield* sql<{ category: string }>`SELECT e.category FROM tenant_integrations i JOIN catalog_entries e ON e.id = i.catalog_id
            WHERE i.tenant_id = ${tenantId} AND i.id = ${connectionId} AND i.status = 'active'`
          if (install === undefined) return { _tag: "Missing" } as const
          if (install.category.toLowerCase() !== "ticketing") return { _tag: "NotTicketing", category: install.category } as const
          const [stored] = yield* sql<{ capability: string; sealed: string }>`SELECT capability, sealed FROM integration_credentials WHERE integration_id = ${connectionId}
            ORDER BY (capability = 'agent_tool') DESC, capability LIMIT 1`
          if (stored === undefined) return { _tag: "Found", credentials: {} } as const
          const opened = yield* cipher.decrypt(stored.sealed, credentialsAad(connectionId, stored.capability)).pipe(
            Effect.orElse(() => Effect.succeed(undefined))
          )
          const credentials = opened === undefined ? Option.none() : Schema.decodeUnknownOption(Credentials)(opened)
          return { _tag: "Found", credentials: Option.getOrElse(credentials, () => ({})) } as const
        }).pipe(Effect.orDie, Effect.withSpan("TicketingConnections.lookup"))
    }
  })
)
