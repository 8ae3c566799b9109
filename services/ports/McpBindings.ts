import { Context, type Effect } from "effect"

/** Which AI Employees use an MCP server, as the integrations service asks; the workflow service implements it. */
export class McpBindings extends Context.Tag("ports/McpBindings")<McpBindings, {
  /** Names of the AI Employees whose active version has an agent step bound to this server. */
  readonly boundBy: (tenantId: string, serverId: string) => Effect.Effect<ReadonlyArray<string>>
}>() {}
