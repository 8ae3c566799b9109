import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Where an MCP server's stored credentials may go: the target (URL and transport) an
 * administrator approved by activating it, and the target they were supplied for. Servers
 * activated before keep their current target approved; credentials stored before belong to it.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE mcp_servers ADD COLUMN approved_server_url text, ADD COLUMN approved_transport text,
    ADD COLUMN credentials_server_url text, ADD COLUMN credentials_transport text`
  yield* sql`UPDATE mcp_servers SET approved_server_url = server_url, approved_transport = transport WHERE status IN ('active', 'disabled')`
  yield* sql`UPDATE mcp_servers SET credentials_server_url = server_url, credentials_transport = transport WHERE credentials_sealed IS NOT NULL`
})
