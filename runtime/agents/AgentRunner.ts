import { Context, Effect, Layer } from "effect"
import type { AgentConfig as AgentConfigSchema, Condition } from "../../schemas/Dag.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"
import { holds } from "../dag/Conditions.js"
import type { RunContext } from "../dag/Context.js"
import { checkJsonSchema } from "../dag/JsonSchema.js"
import { renderDeep, renderText } from "../dag/Render.js"
import { type ChatMessage, type ChatResult, ChatModel, type TokenUsage } from "../models/ChatModel.js"
import { ModelRegistry } from "../models/ModelRegistry.js"
import { KnowledgeSearch } from "./KnowledgeSearch.js"
import { NodeFailure, type NodeResult } from "../nodes/NodeType.js"

export type AgentConfig = typeof AgentConfigSchema.Type

export interface AgentCall {
  readonly tenantId: string
  readonly agentConfig: AgentConfig
  readonly context: RunContext
  readonly config: WorkflowConfig
  readonly isDryRun: boolean
  readonly emitToken: (delta: string) => Effect.Effect<void>
}

type Usage = Record<string, TokenUsage>

const addUsage = (usage: Usage, result: ChatResult): Usage => {
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

/** What the model is asked besides the instructions: the chat turn, else the inputs, else the run input. */
const userTurn = (call: AgentCall) => {
  if (call.context.chat?.message !== undefined) return call.context.chat.message
  const inputs = call.agentConfig.inputs === undefined ? call.context.workflow_input : renderDeep(call.agentConfig.inputs, call.context)
  return typeof inputs === "string" ? inputs : JSON.stringify(inputs)
}

const asRecord = (u: unknown): Record<string, unknown> =>
  u !== null && typeof u === "object" && !Array.isArray(u) ? (u as Record<string, unknown>) : {}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

interface Intent {
  readonly name: string
  readonly description?: string
  readonly eligibility?: ReadonlyArray<Condition>
}

/**
 * The agent types behind one seam: workflow agent nodes and the agents API's test-execute run
 * exactly this code.
 */
export class AgentRunner extends Context.Tag("AgentRunner")<AgentRunner, {
  readonly run: (call: AgentCall) => Effect.Effect<NodeResult, NodeFailure>
}>() {
  static readonly layer = Layer.effect(
    AgentRunner,
    Effect.gen(function*() {
      const model = yield* ChatModel
      const registry = yield* ModelRegistry
      const knowledge = yield* KnowledgeSearch

      const complete = (call: AgentCall, messages: ReadonlyArray<ChatMessage>, jsonSchema?: { name: string; schema: Record<string, unknown> }) =>
        Effect.gen(function*() {
          const c = call.agentConfig
          const requested = typeof c.llm_config?.model === "string" ? c.llm_config.model : undefined
          const chosen = yield* registry.choose(call.tenantId, call.config, requested)
          if (chosen === undefined) return yield* new NodeFailure({ message: "No LLM model is available for this AI Employee" })
          const result = yield* model.complete({
            model: chosen.model,
            provider: chosen.provider,
            messages,
            jsonSchema,
            ...(typeof c.llm_config?.temperature === "number" ? { temperature: c.llm_config.temperature } : {}),
            ...(jsonSchema === undefined ? { onToken: call.emitToken } : {})
          }).pipe(Effect.mapError((e) => new NodeFailure({ message: e.message })))
          // Usage is kept per model as the AI Employee names it (provider/model for tenant providers).
          return { ...result, model: chosen.id }
        })

      const instructions = (call: AgentCall): ChatMessage => ({
        role: "system",
        content: renderText(call.agentConfig.system_prompt_template, call.context)
      })

      const respond = (call: AgentCall) =>
        complete(call, [instructions(call), { role: "user", content: userTurn(call) }]).pipe(
          Effect.map((r) => ({ output: { text: r.text }, usage: addUsage({}, r) }))
        )

      const classify = (call: AgentCall) =>
        Effect.gen(function*() {
          const intents = (call.agentConfig.type_config?.intents ?? []) as ReadonlyArray<Intent>
          if (!Array.isArray(intents) || intents.length === 0) {
            return yield* new NodeFailure({ message: "intent_classification needs type_config.intents" })
          }
          const names = intents.map((i) => i.name)
          const schema = {
            type: "object",
            additionalProperties: false,
            required: ["intent", "confidence"],
            properties: { intent: { type: "string", enum: names }, confidence: { type: "number", minimum: 0, maximum: 1 } }
          }
          const list = intents.map((i) => `- ${i.name}${i.description !== undefined ? `: ${i.description}` : ""}`).join("\n")
          const r = yield* complete(call, [
            { role: "system", content: `${instructions(call).content}\n\nChoose exactly one intent:\n${list}\nAnswer as JSON {"intent", "confidence"}.` },
            { role: "user", content: userTurn(call) }
          ], { name: "intent", schema })
          const answer = parseJson(r.text) as { intent?: unknown; confidence?: unknown } | undefined
          if (answer === undefined || typeof answer.intent !== "string" || !names.includes(answer.intent)) {
            return yield* new NodeFailure({ message: `The model did not answer with one of the intents: ${r.text.slice(0, 200)}` })
          }
          const intent = intents.find((i) => i.name === answer.intent)!
          const eligible = (intent.eligibility ?? []).every((rule: Condition) => holds(rule, call.context))
          const confidence = typeof answer.confidence === "number" ? Math.max(0, Math.min(1, answer.confidence)) : 0
          return { output: { intent: answer.intent, confidence, eligible }, usage: addUsage({}, r) }
        })

      /** The reply must match type_config.schema; one corrective retry, then the step fails. */
      const extract = (call: AgentCall) =>
        Effect.gen(function*() {
          const schema = call.agentConfig.type_config?.schema
          if (schema === null || typeof schema !== "object") {
            return yield* new NodeFailure({ message: "extraction needs type_config.schema" })
          }
          const messages: Array<ChatMessage> = [instructions(call), { role: "user", content: userTurn(call) }]
          let usage: Usage = {}
          for (let attempt = 1; attempt <= 2; attempt++) {
            const r = yield* complete(call, messages, { name: "extraction", schema: schema as Record<string, unknown> })
            usage = addUsage(usage, r)
            const value = parseJson(r.text)
            const problems = value === undefined
              ? [{ path: "", message: "the reply is not JSON" }]
              : checkJsonSchema(schema, value)
            if (problems.length === 0) return { output: value, usage }
            if (attempt === 2) {
              return yield* new NodeFailure({
                message: `The extraction reply does not match the schema after a retry: ${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}`
              })
            }
            messages.push(
              { role: "assistant", content: r.text },
              { role: "user", content: `That reply does not match the schema (${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}). Answer again with JSON that matches it exactly.` }
            )
          }
          return yield* new NodeFailure({ message: "unreachable" })
        })

      /** Retrieval from the node's knowledge bases, then an answer that cites what it used. */
      const searchRespond = (call: AgentCall) =>
        Effect.gen(function*() {
          const c = call.agentConfig
          const inputs = c.inputs === undefined ? call.context.workflow_input : asRecord(renderDeep(c.inputs, call.context))
          const query = call.context.chat?.message ?? (typeof inputs.query === "string" ? inputs.query : userTurn(call))
          const topK = typeof c.type_config?.top_k === "number" ? c.type_config.top_k : 5
          const minScore = typeof c.type_config?.min_score === "number" ? c.type_config.min_score : 0
          const hits = yield* knowledge.search(call.tenantId, c.knowledge_base_ids ?? [], query, { topK, minScore })
          const sources = hits.length === 0
            ? "No relevant documents were found; say so rather than guessing."
            : hits.map((h, i) => `[${i + 1}] ${h.title}\n${h.snippet}`).join("\n\n")
          const r = yield* complete(call, [
            { role: "system", content: `${instructions(call).content}\n\nAnswer from these sources only and cite them as [n]:\n\n${sources}` },
            { role: "user", content: query }
          ])
          const citations = [...new Map(hits.map((h) => [h.chunk_id, h])).values()]
          return { output: { text: r.text, citations }, usage: addUsage({}, r) }
        })

      const run = (call: AgentCall): Effect.Effect<NodeResult, NodeFailure> => {
        switch (call.agentConfig.agent_type) {
          case "respond":
            return respond(call)
          case "intent_classification":
            return classify(call)
          case "extraction":
            return extract(call)
          case "search_respond":
            return searchRespond(call)
          default:
            return Effect.fail(new NodeFailure({ message: `Agent type '${call.agentConfig.agent_type}' is not available yet; the step cannot run` }))
        }
      }

      return { run: (call) => run(call).pipe(Effect.withSpan("agent.run", { attributes: { agent_type: call.agentConfig.agent_type } })) }
    })
  )
}
