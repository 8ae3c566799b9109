import { Chunk, Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { Agent } from "undici"
import { modelDuration, modelLabel, modelTokens, record } from "../../otel/Metrics.js"
import { AppConfig } from "../../platform/Config.js"
import { OutboundGuard } from "../../platform/outbound/OutboundGuard.js"
import { type EventData, withEventStream } from "./EventStreamPost.js"
import { ModelError } from "./ModelError.js"
import { makeProviderGates } from "./ProviderGate.js"

export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

export interface ChatMessage {
  readonly role: "system" | "user" | "assistant" | "tool"
  readonly content: string | null
  readonly tool_calls?: ReadonlyArray<{ id: string; type: "function"; function: { name: string; arguments: string } }>
  readonly tool_call_id?: string
}

export interface ToolDefinition {
  readonly name: string
  readonly description?: string
  readonly parameters: Record<string, unknown>
}

/** Where a call goes: a tenant's own provider, or (when absent) the platform provider. */
export interface ProviderEndpoint {
  readonly baseUrl: string
  readonly apiKey: string | undefined
}

export interface ChatRequest {
  readonly model: string
  readonly provider?: ProviderEndpoint | undefined
  readonly messages: ReadonlyArray<ChatMessage>
  readonly jsonSchema?: { readonly name: string; readonly schema: Record<string, unknown> } | undefined
  readonly tools?: ReadonlyArray<ToolDefinition> | undefined
  readonly temperature?: number | undefined
  /** Called with each streamed piece of text. */
  readonly onToken?: ((delta: string) => Effect.Effect<void>) | undefined
}

export interface TokenUsage {
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
}

export interface ChatResult {
  readonly model: string
  readonly text: string
  readonly toolCalls: ReadonlyArray<ToolCall>
  readonly usage: TokenUsage
  readonly finishReason: string | null
}

export { ModelError }

interface StreamChunk {
  readonly model?: string
  readonly choices?: ReadonlyArray<{
    readonly delta?: {
      readonly content?: string | null
      readonly tool_calls?: ReadonlyArray<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>
    }
    readonly finish_reason?: string | null
  }>
  readonly usage?: TokenUsage | null
  readonly error?: { readonly message?: string }
}

/**
 * Whether a schema meets OpenAI's strict structured-output rules (every object closed and every
 * property required); builders' own schemas often do not, and strict mode would refuse them.
 */
export const isStrictSchema = (schema: unknown): boolean => {
  if (Array.isArray(schema)) return schema.every(isStrictSchema)
  if (schema === null || typeof schema !== "object") return true
  const s = schema as Record<string, unknown>
  if (s.type === "object" || s.properties !== undefined) {
    const properties = (s.properties ?? {}) as Record<string, unknown>
    const required = Array.isArray(s.required) ? s.required : []
    if (s.additionalProperties !== false) return false
    if (!Object.keys(properties).every((k) => required.includes(k))) return false
  }
  return Object.entries(s).every(([k, v]) => k === "enum" || k === "const" || k === "required" || isStrictSchema(v))
}

const parseChunk = (data: string): StreamChunk | undefined => {
  try {
    return JSON.parse(data) as StreamChunk
  } catch {
    return undefined
  }
}

export interface ChatModelShape {
  readonly complete: (request: ChatRequest) => Effect.Effect<ChatResult, ModelError>
}

/**
 * An OpenAI-compatible chat-completions client (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM):
 * always streams, reports tokens as they come, collects tool calls and usage, times out and
 * retries with backoff on 429, 5xx and transport errors before the first token.
 */
export class ChatModel extends Context.Tag("ChatModel")<ChatModel, ChatModelShape>() {
  static readonly layer = Layer.scoped(
    ChatModel,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const platformDispatcher = yield* Effect.acquireRelease(Effect.sync(() => new Agent()), (agent) => Effect.promise(() => agent.close()))
      // Tenants' own providers are tenant-supplied addresses: reached only through the outbound guard.
      const guard = yield* OutboundGuard
      const baseUrl = Option.map(config.llmBaseUrl, (u) => u.replace(/\/$/, ""))
      const apiKey = Option.map(config.llmApiKey, Redacted.value)
      const timeout = Duration.seconds(config.llmTimeoutSeconds)

      const attempt = (request: ChatRequest, seen: { token: boolean }) =>
        Effect.gen(function*() {
          const endpoint = request.provider ?? (Option.isSome(baseUrl)
            ? { baseUrl: baseUrl.value, apiKey: Option.getOrUndefined(apiKey) }
            : undefined)
          if (endpoint === undefined) {
            return yield* new ModelError({ message: "No LLM provider is configured (LLM_BASE_URL)", retryable: false })
          }
          const body = {
            model: request.model,
            messages: request.messages,
            stream: true,
            stream_options: { include_usage: true },
            ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
            ...(request.jsonSchema !== undefined
              ? {
                response_format: {
                  type: "json_schema",
                  json_schema: { name: request.jsonSchema.name, schema: request.jsonSchema.schema, strict: isStrictSchema(request.jsonSchema.schema) }
                }
              }
              : {}),
            ...(request.tools !== undefined && request.tools.length > 0
              ? {
                tools: request.tools.map((t) => ({
                  type: "function",
                  function: { name: t.name, description: t.description ?? "", parameters: t.parameters }
                }))
              }
              : {})
          }
          const dispatcher = request.provider !== undefined ? guard.dispatcher : platformDispatcher
          const url = `${endpoint.baseUrl.replace(/\/$/, "")}/chat/completions`
          return yield* withEventStream({ dispatcher, what: "Model", url, apiKey: endpoint.apiKey, body, timeout }, (events) => read(request, seen, events))
        })

      /** Reads a streamed reply: text (streamed out as it comes), tool calls, usage. */
      const read = (request: ChatRequest, seen: { token: boolean }, events: EventData) =>
        Effect.gen(function*() {
          const state = {
            text: "",
            model: request.model,
            usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } as TokenUsage,
            finish: null as string | null,
            calls: new Map<number, { id: string; name: string; arguments: string }>()
          }
          /** Folds one chunk in; the text it adds, to be streamed out. */
          const fold = (chunk: StreamChunk): string | ModelError => {
            if (chunk.error !== undefined) return new ModelError({ message: chunk.error.message ?? "model stream error", retryable: false })
            if (chunk.model !== undefined) state.model = chunk.model
            if (chunk.usage) state.usage = chunk.usage
            let text = ""
            for (const choice of chunk.choices ?? []) {
              if (choice.finish_reason) state.finish = choice.finish_reason
              const delta = choice.delta?.content
              if (typeof delta === "string" && delta.length > 0) text += delta
              for (const call of choice.delta?.tool_calls ?? []) {
                const current = state.calls.get(call.index) ?? { id: "", name: "", arguments: "" }
                state.calls.set(call.index, {
                  id: call.id ?? current.id,
                  name: current.name + (call.function?.name ?? ""),
                  arguments: current.arguments + (call.function?.arguments ?? "")
                })
              }
            }
            return text
          }
          let done = false
          while (!done) {
            const payloads = yield* events.next
            if (payloads === undefined) break
            for (const data of payloads) {
              if (data === "[DONE]") {
                done = true
                break
              }
              const chunk = parseChunk(data)
              if (chunk === undefined) return yield* new ModelError({ message: "Model sent malformed stream data", retryable: false })
              const text = fold(chunk)
              if (typeof text !== "string") return yield* text
              if (text.length === 0) continue
              state.text += text
              seen.token = true
              if (request.onToken !== undefined) yield* request.onToken(text)
            }
          }
          // The end of the response normally comes with [DONE]: reading it lets the connection be reused.
          if (done) yield* events.finish
          return {
            model: state.model,
            text: state.text,
            toolCalls: Chunk.toReadonlyArray(Chunk.fromIterable(state.calls.values())).map((c) => ({ ...c })),
            usage: state.usage,
            finishReason: state.finish
          } satisfies ChatResult
        })

      const gates = makeProviderGates()
      const rateLimitWaitMs = config.llmRateLimitWaitSeconds * 1000

      /**
       * Up to three retries with jittered exponential backoff (250 ms, 500 ms, 1 s), none after
       * text went out (a retry would repeat it on the stream). A 429 is not a failure but the
       * provider asking to slow down: the provider's gate closes for its Retry-After (ProviderGate),
       * every call to it waits, and this one is sent again, for up to LLM_RATE_LIMIT_WAIT_SECONDS
       * in all. Its span is the caller's (`llm.call`): a model call is on every agent step's path.
       */
      const complete = (request: ChatRequest) => {
        const seen = { token: false }
        const provider = request.provider?.baseUrl ?? Option.getOrElse(baseUrl, () => "")
        let paused = 0
        const go = (retries: number, delayMs: number): Effect.Effect<ChatResult, ModelError> =>
          Effect.catchAll(Effect.zipRight(gates.wait(provider), attempt(request, seen)), (e) => {
            if (e.status === 429 && !seen.token && paused < rateLimitWaitMs) {
              return Effect.flatMap(gates.pause(provider, e.retryAfterMs ?? delayMs), (ms) => {
                paused += ms
                return go(retries, Math.min(delayMs * 2, 8_000))
              })
            }
            return e.retryable && !seen.token && retries > 0
              ? Effect.zipRight(Effect.sleep(Duration.millis(delayMs * (0.8 + Math.random() * 0.4))), go(retries - 1, delayMs * 2))
              : Effect.fail(e)
          })
        const began = performance.now()
        return go(3, 250).pipe(Effect.onExit((exit) => {
          const model = modelLabel(request.model)
          const timed = record(
            modelDuration(["gen_ai.request.model", model], ["outcome", exit._tag === "Success" ? "ok" : "error"]),
            (performance.now() - began) / 1000
          )
          if (exit._tag !== "Success") return timed
          const usage = exit.value.usage
          return Effect.all([
            timed,
            record(modelTokens(["gen_ai.request.model", model], ["gen_ai.token.type", "input"]), usage.prompt_tokens),
            record(modelTokens(["gen_ai.request.model", model], ["gen_ai.token.type", "output"]), usage.completion_tokens)
          ], { discard: true })
        }))
      }

      return { complete }
    })
  )
}
