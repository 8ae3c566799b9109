import { Context, type Effect } from "effect"

/** A run's calls of integration functions and MCP tools, as the run endpoints show them; the integrations service implements it. */
export class ExternalToolCalls extends Context.Tag("ports/ExternalToolCalls")<ExternalToolCalls, {
  readonly forRun: (tenantId: string, runId: string) => Effect.Effect<ReadonlyArray<Record<string, unknown>>>
}>() {}
