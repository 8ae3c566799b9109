import { Context, Effect, Layer, Schema } from "effect"

/**
 * One tool interface for agents: built-in platform tools, integration functions (`action_ids`)
 * and MCP server tools all arrive as `ToolSpec`s from a `ToolSource` and are invoked through the
 * registry, which is also where the dry-run rule lives.
 */
export interface ToolSpec {
  /** The action id a DAG names (`builtin.knowledge_search`, an integration function id, `mcp:<server>:<tool>`). */
  readonly id: string
  /** Which source answers for it. */
  readonly source: string
  readonly description: string
  /** JSON Schema of the arguments. */
  readonly parameters: Record<string, unknown>
  /** JSON Schema of `tool_config[id]` on a node, checked at publish. */
  readonly configSchema?: Record<string, unknown> | undefined
  /** Tools that change the world are not invoked in dry runs. */
  readonly sideEffects: boolean
}

export interface ToolInvocation {
  readonly tenantId: string
  readonly runId: string
  /** The user the run acts for (their OAuth connections), when someone started it. */
  readonly userId?: string | null | undefined
  readonly arguments: Record<string, unknown>
  /** `tool_config[id]` of the node. */
  readonly config: Record<string, unknown>
  readonly knowledgeBaseIds: ReadonlyArray<string>
  readonly isDryRun: boolean
}

export class ToolFailure extends Schema.TaggedError<ToolFailure>()("ToolFailure", {
  message: Schema.String
}) {}

export interface ToolSource {
  readonly name: string
  /** The specs of those `actionIds` this source owns. */
  readonly actions: (tenantId: string, actionIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ToolSpec>>
  /** The tools of these MCP servers that this source serves. */
  readonly mcpTools: (tenantId: string, serverIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ToolSpec>>
  readonly invoke: (spec: ToolSpec, invocation: ToolInvocation) => Effect.Effect<unknown, ToolFailure>
}

export const DRY_RUN_RESULT = {
  dry_run: true,
  executed: false,
  note: "This is a dry run: the tool changes things outside the platform, so it was not executed."
} as const

export class ToolRegistry extends Context.Tag("ToolRegistry")<ToolRegistry, {
  readonly register: (source: ToolSource) => Effect.Effect<void>
  readonly actions: (tenantId: string, actionIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, ToolSpec>>
  /** Everything an agent step may call: its actions and its MCP servers' tools. */
  readonly forAgent: (
    tenantId: string,
    refs: { readonly actionIds: ReadonlyArray<string>; readonly mcpServerIds: ReadonlyArray<string> }
  ) => Effect.Effect<ReadonlyArray<ToolSpec>>
  readonly invoke: (spec: ToolSpec, invocation: ToolInvocation) => Effect.Effect<unknown, ToolFailure>
}>() {
  static readonly layer = Layer.sync(ToolRegistry, () => {
    const sources = new Map<string, ToolSource>()
    const actions = (tenantId: string, actionIds: ReadonlyArray<string>) =>
      Effect.forEach([...sources.values()], (s) => s.actions(tenantId, actionIds)).pipe(
        Effect.map((lists) => new Map(lists.flat().map((spec) => [spec.id, spec])))
      )
    return {
      register: (source) => Effect.sync(() => void sources.set(source.name, source)),
      actions,
      forAgent: (tenantId, refs) =>
        Effect.gen(function*() {
          const own = yield* actions(tenantId, refs.actionIds)
          const mcp = refs.mcpServerIds.length === 0
            ? []
            : (yield* Effect.forEach([...sources.values()], (s) => s.mcpTools(tenantId, refs.mcpServerIds))).flat()
          return [...refs.actionIds.flatMap((id) => own.get(id) ?? []), ...mcp]
        }),
      invoke: (spec, invocation) => {
        if (spec.sideEffects && invocation.isDryRun) return Effect.succeed(DRY_RUN_RESULT)
        const source = sources.get(spec.source)
        return source === undefined
          ? Effect.fail(new ToolFailure({ message: `No tool source '${spec.source}'` }))
          : source.invoke(spec, invocation)
      }
    }
  })
}

/** A layer that registers one tool source. */
export const toolSource = <E, R>(make: Effect.Effect<ToolSource, E, R>) =>
  Layer.effectDiscard(Effect.flatMap(Effect.zip(ToolRegistry, make), ([registry, source]) => registry.register(source)))
