import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** MCP tool calls are expired by tenant and age, as integration executions are (issue 38). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX IF NOT EXISTS mcp_tool_calls_recent ON mcp_tool_calls (tenant_id, created_at)`
})
