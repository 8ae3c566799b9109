import { Effect } from "effect"
import { partitionInPlace } from "../../../runtime/run/PartitionInPlace.js"

/** Integration executions and MCP tool calls grow with every call: partitioned by day on their own version-7 ids (issue 38). */
export default Effect.zipRight(
  partitionInPlace({
    name: "integration_executions",
    key: "id",
    constraints: ["integration_executions_pkey PRIMARY KEY (id)"],
    indexes: [
      "INDEX integration_executions_recent ON integration_executions (tenant_id, created_at DESC, id)",
      "INDEX integration_executions_run ON integration_executions (run_id) WHERE run_id IS NOT NULL"
    ]
  }),
  partitionInPlace({
    name: "mcp_tool_calls",
    key: "id",
    constraints: ["mcp_tool_calls_pkey PRIMARY KEY (id)"],
    indexes: [
      "INDEX mcp_tool_calls_recent ON mcp_tool_calls (tenant_id, created_at)",
      "INDEX mcp_tool_calls_run ON mcp_tool_calls (run_id) WHERE run_id IS NOT NULL"
    ]
  })
)
