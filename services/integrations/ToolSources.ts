import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer } from "effect"
import { decodeRows, JsonObject } from "../../platform/Rows.js"
import { uuidV7 } from "../../platform/TimedId.js"
import { ToolFailure, toolSource, type ToolSpec } from "../../runtime/tools/Tools.js"
import type { TenantId } from "../../schemas/Ids.js"
import { ExternalToolCalls } from "../ports/ExternalToolCalls.js"
import { McpRegistry } from "../ports/PublishChecks.js"
import { Functions } from "./Functions.js"
import { McpServers } from "./mcp/McpServers.js"

const MCP_PREFIX = "mcp:"

/** Enabled integration functions as agent tools: `action_ids` name them by function id. */
export const FunctionToolsLive = toolSource(Effect.map(Functions, (functions) => ({
  name: "integrations",
  actions: (tenantId, actionIds) =>
    Effect.map(functions.callableByIds(tenantId, actionIds), (rows) =>
      rows.map((f): ToolSpec => ({
        id: f.id,
        source: "integrations",
        description: f.description || `${f.integration_name}.${f.name}`,
        parameters: f.input_schema,
        sideEffects: f.side_effects
      }))),
  mcpTools: () => Effect.succeed([]),
  invoke: (spec, invocation) =>
    Effect.gen(function*() {
      const [fn] = yield* functions.callableByIds(invocation.tenantId, [spec.id])
      if (fn === undefined) return yield* new ToolFailure({ message: "The function is no longer installed or enabled" })
      yield* functions.checkInput(fn, invocation.arguments).pipe(Effect.mapError((e) => new ToolFailure({ message: e.message })))
      const result = yield* functions.run(fn, invocation.arguments, {
        tenantId: invocation.tenantId,
        userId: invocation.userId ?? null,
        runId: invocation.runId
      })
      if (result.status === "error") return yield* new ToolFailure({ message: result.error ?? "The function failed" })
      return result.output ?? null
    })
})))

/** The tools of active MCP servers bound to a step: `mcp:<server id>:<tool>`. Each call is recorded for the run's snapshots. */
export const McpToolsLive = toolSource(Effect.gen(function*() {
  const servers = yield* McpServers
  const sql = yield* SqlClient.SqlClient
  return {
    name: "mcp",
    actions: () => Effect.succeed([]),
    mcpTools: (tenantId, serverIds) =>
      Effect.map(servers.active(tenantId, serverIds), (rows) =>
        rows.flatMap((server) =>
          server.tools.map((tool): ToolSpec => ({
            id: `${MCP_PREFIX}${server.id}:${tool.name}`,
            source: "mcp",
            description: `${tool.description} (MCP server ${server.name})`.trim(),
            parameters: tool.input_schema,
            // What an MCP tool does is not declared: it is treated as changing the world (not invoked in dry runs).
            sideEffects: true
          }))
        )),
    invoke: (spec, invocation) =>
      Effect.gen(function*() {
        const [serverId, ...rest] = spec.id.slice(MCP_PREFIX.length).split(":")
        const tool = rest.join(":")
        const started = performance.now()
        const result = yield* Effect.either(servers.invoke(invocation.tenantId, serverId ?? "", tool, invocation.arguments, invocation.userId ?? null))
        yield* sql`INSERT INTO mcp_tool_calls ${
          sql.insert({
            id: uuidV7(),
            tenant_id: invocation.tenantId,
            server_id: serverId ?? "",
            tool,
            run_id: invocation.runId,
            status: Either.isRight(result) ? "success" : "error",
            input: JSON.stringify(invocation.arguments),
            output: Either.isRight(result) ? JSON.stringify(result.right) : null,
            error: Either.isLeft(result) ? result.left.message : null,
            duration_ms: Math.round((performance.now() - started) * 100) / 100
          })
        }`.pipe(Effect.orDie)
        return yield* Either.match(result, {
          onLeft: (e) => Effect.fail(new ToolFailure({ message: e.message })),
          onRight: Effect.succeed
        })
      })
  }
}))

/** Publish checks read the real MCP registry: an active server is approved, a pending or disabled one is not. */
export const McpRegistryLive = Layer.effect(
  McpRegistry,
  Effect.map(McpServers, (servers) => ({ statuses: (tenantId: TenantId, ids: ReadonlyArray<string>) => servers.statuses(tenantId, ids) }))
)

/** A run's function executions and MCP tool calls, oldest first. */
export const ExternalToolCallsLive = Layer.effect(
  ExternalToolCalls,
  Effect.map(SqlClient.SqlClient, (sql) => ({
    forRun: (tenantId, runId) =>
      sql`
        SELECT * FROM (
          SELECT id AS call_id, 'function' AS kind, function_id::text AS tool_id, function_name AS name, integration_id::text AS integration_id,
            NULL AS server_id, status, input, output, error, duration_ms, created_at
          FROM integration_executions WHERE tenant_id = ${tenantId} AND run_id = ${runId}
          UNION ALL
          SELECT id, 'mcp', 'mcp:' || server_id || ':' || tool, tool, NULL, server_id::text, status, input, output, error, duration_ms, created_at
          FROM mcp_tool_calls WHERE tenant_id = ${tenantId} AND run_id = ${runId}
        ) calls ORDER BY created_at, call_id`.pipe(
        decodeRows("integration_executions", JsonObject),
        Effect.map((rows) => rows.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)))),
        Effect.orDie
      )
  }))
)
