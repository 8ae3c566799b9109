import { Context, Effect, Layer } from "effect"
import { annotateSpan } from "../../otel/FiberSpan.js"
import { RUN_ID } from "../../otel/RunTraceIds.js"
import type { AgentConfig as AgentConfigSchema } from "../../schemas/Dag.js"
import { asRecord } from "../../schemas/Records.js"
import type { RunEventType } from "../../schemas/RunLifecycle.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"
import type { RunContext } from "../dag/Context.js"
import { checkJsonSchema, type SchemaProblem } from "../dag/JsonSchema.js"
import { renderDeep, renderText } from "../dag/Render.js"
import { type ChatMessage, ChatModel, type ChatResult, type TokenUsage, type ToolDefinition } from "../models/ChatModel.js"
import { ModelRegistry } from "../models/ModelRegistry.js"
import { NodeFailure, type NodeResult } from "../nodes/NodeType.js"
import { TenantModelCalls } from "../run/Admission.js"

export type AgentConfig = typeof AgentConfigSchema.Type

export interface AgentCall {
  /** Set when the call is a step of a run: its spans then join the run's trace. */
  readonly runId?: string | undefined
  readonly tenantId: string
  readonly agentConfig: AgentConfig
  readonly context: RunContext
  readonly config: WorkflowConfig
  readonly isDryRun: boolean
  /** The user who started the run, for tools that act as them. */
  readonly userId?: string | null | undefined
  readonly emitToken: (delta: string) => Effect.Effect<void>
  /** Step events (tool calls); absent outside a run (the agents API's test executions). */
  readonly emitEvent?: ((type: RunEventType, payload: Record<string, unknown>) => Effect.Effect<void>) | undefined
}

/** One agent type's behaviour. */
export type AgentTypeRun = (call: AgentCall) => Effect.Effect<NodeResult, NodeFailure>

export type Usage = Record<string, TokenUsage>

export const addUsage = (usage: Usage, result: { readonly model: string; readonly usage: TokenUsage }): Usage => {
  const t = usage[result.model] ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }
  return {
    ...usage,
    [result.model]: {
      prompt_tokens: t.prompt_tokens + result.usage.prompt_tokens,
      completion_tokens: t.completion_tokens + result.usage.completion_tokens,
      total_tokens: t.total_tokens + result.usage.total_tokens
    }
  }
}

export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The step's inputs rendered against the run context, else the run input. */
export const renderedInputs = (call: AgentCall): unknown =>
  call.agentConfig.inputs === undefined ? call.context.workflow_input : renderDeep(call.agentConfig.inputs, call.context)

/** What the model is asked besides the instructions: the chat turn, else the inputs, else the run input. */
export const userTurn = (call: AgentCall): string => {
  if (call.context.chat?.message !== undefined) return call.context.chat.message
  const inputs = renderedInputs(call)
  return typeof inputs === "string" ? inputs : JSON.stringify(inputs)
}

/** Earlier turns of a chat run (`chat.history`) as model messages; nothing outside chat. */
export const priorTurns = (call: AgentCall): Array<ChatMessage> =>
  (call.context.chat?.history ?? []).flatMap((m): Array<ChatMessage> => {
    const r = asRecord(m)
    return (r.role === "user" || r.role === "assistant") && typeof r.content === "string" ? [{ role: r.role, content: r.content }] : []
  })

/** The conversation a conversational agent answers: earlier chat turns, then this turn. */
export const conversation = (call: AgentCall, turn: string = userTurn(call)): Array<ChatMessage> => [
  ...priorTurns(call),
  { role: "user", content: turn }
]

export const instructions = (call: AgentCall): string => renderText(call.agentConfig.system_prompt_template, call.context)

/** Span attributes without the absent ones. */
const defined = (record: Record<string, unknown>) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined && v !== ""))

export const describeProblems = (problems: ReadonlyArray<SchemaProblem>) => problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")

export interface CompleteOptions {
  readonly jsonSchema?: { readonly name: string; readonly schema: Record<string, unknown> } | undefined
  readonly tools?: ReadonlyArray<ToolDefinition> | undefined
}

/** A model reply, with `model` as the AI Employee names it (`provider/model` for tenant providers). */
export type AgentReply = ChatResult

/** The model call every agent type makes: model choice, the provider, streaming and usage. */
export class AgentKit extends Context.Tag("AgentKit")<AgentKit, {
  readonly complete: (call: AgentCall, messages: ReadonlyArray<ChatMessage>, options?: CompleteOptions) => Effect.Effect<AgentReply, NodeFailure>
  /**
   * A JSON reply checked against `schema`: one corrective retry with the problems named, then the
   * step fails. `check` adds problems of the caller's own (e.g. every rule answered once).
   */
  readonly completeJson: (
    call: AgentCall,
    messages: ReadonlyArray<ChatMessage>,
    schema: { readonly name: string; readonly schema: Record<string, unknown> },
    check?: (value: unknown) => ReadonlyArray<SchemaProblem>
  ) => Effect.Effect<{ readonly value: unknown; readonly usage: Usage }, NodeFailure>
}>() {
  static readonly layer = Layer.effect(
    AgentKit,
    Effect.gen(function*() {
      const model = yield* ChatModel
      const registry = yield* ModelRegistry
      const modelCalls = yield* TenantModelCalls

      const complete = (call: AgentCall, messages: ReadonlyArray<ChatMessage>, options: CompleteOptions = {}) =>
        Effect.gen(function*() {
          const c = call.agentConfig
          const requested = typeof c.llm_config?.model === "string" ? c.llm_config.model : undefined
          const chosen = yield* registry.choose(call.tenantId, call.config, requested)
          if (chosen === undefined) return yield* new NodeFailure({ kind: "configuration", message: "No LLM model is available for this AI Employee" })
          const started = Date.now()
          yield* annotateSpan(defined({
            "gen_ai.request.model": chosen.id,
            "llm.instructions": messages.filter((m) => m.role === "system").map((m) => m.content ?? "").join("\n\n"),
            "llm.input": messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.content ?? JSON.stringify(m.tool_calls ?? [])}`).join("\n"),
            "llm.structured_output": options.jsonSchema?.name,
            "llm.tools": options.tools?.map((t) => t.name).join(",")
          }))
          // A slot of the tenant's model calls in flight: one tenant's many runs cannot take the provider from the others.
          const result = yield* modelCalls.withSlot(
            call.tenantId,
            () => Effect.void,
            model.complete({
              model: chosen.model,
              provider: chosen.provider,
              messages,
              jsonSchema: options.jsonSchema,
              tools: options.tools,
              ...(typeof c.llm_config?.temperature === "number" ? { temperature: c.llm_config.temperature } : {}),
              ...(options.jsonSchema === undefined ? { onToken: call.emitToken } : {})
            })
          ).pipe(Effect.mapError((e) => new NodeFailure({ kind: "model", message: e.message })))
          yield* annotateSpan(defined({
            "gen_ai.response.model": result.model,
            "gen_ai.usage.input_tokens": result.usage.prompt_tokens,
            "gen_ai.usage.output_tokens": result.usage.completion_tokens,
            "gen_ai.usage.total_tokens": result.usage.total_tokens,
            "llm.latency_ms": Date.now() - started,
            "llm.output": result.text,
            "llm.tool_calls": result.toolCalls.map((t) => t.name).join(","),
            "llm.finish_reason": result.finishReason ?? undefined
          }))
          return { ...result, model: chosen.id }
        }).pipe(Effect.withSpan("llm.call", {
          attributes: { ...(call.runId !== undefined ? { [RUN_ID]: call.runId } : {}), "gen_ai.operation.name": "chat" },
          captureStackTrace: false
        }))

      const completeJson = (
        call: AgentCall,
        initial: ReadonlyArray<ChatMessage>,
        schema: { readonly name: string; readonly schema: Record<string, unknown> },
        check: (value: unknown) => ReadonlyArray<SchemaProblem> = () => []
      ) =>
        Effect.gen(function*() {
          const messages = [...initial]
          let usage: Usage = {}
          for (let attempt = 1;; attempt++) {
            const r = yield* complete(call, messages, { jsonSchema: schema })
            usage = addUsage(usage, r)
            const value = parseJson(r.text)
            const problems = value === undefined
              ? [{ path: "", message: "the reply is not JSON" }]
              : [...checkJsonSchema(schema.schema, value), ...check(value)]
            if (problems.length === 0) return { value, usage }
            if (attempt === 2) {
              return yield* new NodeFailure({
                kind: "model",
                message: `The ${schema.name} reply does not match the schema after a retry: ${describeProblems(problems)}`
              })
            }
            messages.push(
              { role: "assistant", content: r.text },
              { role: "user", content: `That reply does not match the schema (${describeProblems(problems)}). Answer again with JSON that matches it exactly.` }
            )
          }
        })

      return { complete, completeJson }
    })
  )
}
