import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { TicketingConnections } from "../ports/TicketingConnections.js"
import { InstallSecrets } from "./InstallSecrets.js"

/** The install behind a connected ticketing queue, active in the tenant, with its credentials unsealed. */
export const TicketingConnectionsLive = Layer.effect(
  TicketingConnections,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* InstallSecrets
    return {
      lookup: (tenantId, connectionId) =>
        Effect.gen(function*() {
          const [install] = yield* sql`SELECT e.category FROM tenant_integrations i JOIN catalog_entries e ON e.id = i.catalog_id
            WHERE i.tenant_id = ${tenantId} AND i.id = ${connectionId} AND i.status = 'active'`.pipe(
            decodeRows("tenant_integrations", Schema.Struct({ category: Schema.String }))
          )
          if (install === undefined) return { _tag: "Missing" } as const
          if (install.category.toLowerCase() !== "ticketing") return { _tag: "NotTicketing", category: install.category } as const
          const credentials = yield* secrets.credentials(tenantId, connectionId)
          return { _tag: "Found", credentials: Option.getOrElse(credentials, () => ({})) } as const
        }).pipe(Effect.orDie, Effect.withSpan("TicketingConnections.lookup"))
    }
  })
)
