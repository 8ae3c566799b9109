import { Duration, Effect } from "effect"
import { annotateSpan } from "../../../otel/FiberSpan.js"
import { RUN_ID } from "../../../otel/RunTraceIds.js"
import { asRecord } from "../../../schemas/Records.js"
import { checkJsonSchema } from "../../dag/JsonSchema.js"
import type { ChatMessage, ToolCall } from "../../models/ChatModel.js"
import { NodeFailure } from "../../nodes/NodeType.js"
import { ToolRegistry, type ToolSpec } from "../../tools/Tools.js"
import { addUsage, type AgentCall, AgentKit, type AgentTypeRun, conversation, describeProblems, instructions, parseJson, type Usage } from "../AgentKit.js"

export const DEFAULT_MAX_ITERATIONS = 6
export const MAX_ITERATIONS_LIMIT = 20
const TOOL_TIMEOUT = Duration.seconds(60)

/** Model function names allow `[A-Za-z0-9_-]{1,64}`; action ids may hold dots or colons. */
const functionNames = (specs: ReadonlyArray<ToolSpec>) => {
  const used = new Set<string>()
  return specs.map((spec) => {
    const base = spec.id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60)
    let name = base
    for (let n = 2; used.has(name); n++) name = `${base}_${n}`
    used.add(name)
    return { name, spec }
  })
}

const iterationsOf = (call: AgentCall) => {
  const wanted = call.agentConfig.type_config?.max_iterations
  return typeof wanted === "number" && Number.isInteger(wanted)
    ? Math.min(Math.max(wanted, 1), MAX_ITERATIONS_LIMIT)
    : DEFAULT_MAX_ITERATIONS
}

/**
 * custom: a tool-calling loop over the step's `action_ids` and its MCP servers' tools, bounded by
 * `type_config.max_iterations` rounds. Tool failures and bad arguments go back to the model as the
 * tool's answer. Output `{text}`, or the object of `agent_config.output_schema`.
 */
export const custom = Effect.gen(function*() {
  const kit = yield* AgentKit
  const registry = yield* ToolRegistry

  const invokeTool = (call: AgentCall, spec: ToolSpec, toolCall: ToolCall) => {
    const started = performance.now()
    return Effect.gen(function*() {
      const args = parseJson(toolCall.arguments === "" ? "{}" : toolCall.arguments)
      if (args === null || typeof args !== "object" || Array.isArray(args)) {
        return { error: "The arguments are not a JSON object" }
      }
      const problems = checkJsonSchema(spec.parameters, args)
      if (problems.length > 0) return { error: `The arguments do not match the tool's schema: ${describeProblems(problems)}` }
      return yield* registry.invoke(spec, {
        tenantId: call.tenantId,
        runId: call.context.run.id,
        userId: call.userId ?? null,
        arguments: args as Record<string, unknown>,
        config: asRecord(call.agentConfig.tool_config?.[spec.id]),
        knowledgeBaseIds: call.agentConfig.knowledge_base_ids ?? [],
        isDryRun: call.isDryRun
      }).pipe(
        Effect.timeoutFail({ duration: TOOL_TIMEOUT, onTimeout: () => ({ message: `timed out after ${Duration.format(TOOL_TIMEOUT)}` }) }),
        Effect.catchAll((e) => Effect.succeed({ error: `The tool failed: ${e.message}` }))
      )
    }).pipe(
      Effect.tap((result) => {
        const durationMs = Math.round((performance.now() - started) * 100) / 100
        const failed = typeof result === "object" && result !== null && "error" in result
        return Effect.zipRight(
          annotateSpan({ "tool.result": JSON.stringify(result), "tool.duration_ms": durationMs }),
          call.emitEvent?.("tool_called", {
            tool_call_id: toolCall.id,
            tool_id: spec.id,
            tool_source: spec.source,
            call_status: failed ? "error" : "success",
            duration_ms: durationMs,
            ...(call.isDryRun && spec.sideEffects ? { dry_run: true } : {})
          }) ?? Effect.void
        )
      }),
      Effect.withSpan("tool.call", {
        attributes: {
          ...(call.runId !== undefined ? { [RUN_ID]: call.runId } : {}),
          "tool.id": spec.id,
          "tool.source": spec.source,
          "tool.arguments": toolCall.arguments,
          "tool.dry_run": call.isDryRun
        }
      })
    )
  }

  const run: AgentTypeRun = (call) =>
    Effect.gen(function*() {
      const c = call.agentConfig
      const specs = yield* registry.forAgent(call.tenantId, { actionIds: c.action_ids ?? [], mcpServerIds: c.mcp_server_ids ?? [] })
      const missing = (c.action_ids ?? []).filter((id) => !specs.some((s) => s.id === id))
      if (missing.length > 0) return yield* new NodeFailure({ kind: "configuration", message: `Tools not available: ${missing.join(", ")}` })
      const tools = functionNames(specs)
      const definitions = tools.map((t) => ({ name: t.name, description: t.spec.description, parameters: t.spec.parameters }))
      const outputSchema = c.output_schema
      const messages: Array<ChatMessage> = [
        { role: "system", content: instructions(call) },
        ...conversation(call)
      ]
      let usage: Usage = {}
      const rounds = iterationsOf(call)
      for (let round = 1; round <= rounds; round++) {
        const reply = yield* kit.complete(call, messages, { tools: definitions })
        usage = addUsage(usage, reply)
        if (reply.toolCalls.length === 0) {
          if (outputSchema === undefined) return { output: { text: reply.text }, usage }
          const value = parseJson(reply.text)
          if (value !== undefined && checkJsonSchema(outputSchema, value).length === 0) return { output: value, usage }
          // The final answer must be the output object: ask for it once more, schema-checked.
          const final = yield* kit.completeJson(call, [
            ...messages,
            { role: "assistant", content: reply.text },
            { role: "user", content: "Give your final answer as JSON matching the required output schema." }
          ], { name: "output", schema: outputSchema })
          return { output: final.value, usage: Object.entries(final.usage).reduce((u, [model, t]) => addUsage(u, { model, usage: t }), usage) }
        }
        const calls = reply.toolCalls.map((t, i) => ({ ...t, id: t.id === "" ? `call_${round}_${i}` : t.id }))
        messages.push({
          role: "assistant",
          content: reply.text === "" ? null : reply.text,
          tool_calls: calls.map((t) => ({ id: t.id, type: "function" as const, function: { name: t.name, arguments: t.arguments } }))
        })
        for (const toolCall of calls) {
          const tool = tools.find((t) => t.name === toolCall.name)
          const result = tool === undefined
            ? { error: `There is no tool named '${toolCall.name}'` }
            : yield* invokeTool(call, tool.spec, toolCall)
          messages.push({ role: "tool", tool_call_id: toolCall.id, content: JSON.stringify(result) })
        }
      }
      return yield* new NodeFailure({ kind: "model", message: `The custom agent did not finish within ${rounds} tool-calling rounds` })
    })
  return run
})
