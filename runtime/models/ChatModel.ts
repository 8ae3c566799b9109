import { HttpClient } from "@effect/platform"
import { Chunk, Context, Duration, Effect, Layer, Option, Redacted, Schedule, Stream } from "effect"
import { AppConfig } from "../../services/shared/Config.js"
import { ModelError } from "./ModelError.js"
import { providerPost } from "./ProviderPost.js"

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

export interface ChatModelShape {
  readonly complete: (request: ChatRequest) => Effect.Effect<ChatResult, ModelError>
}

/**
 * An OpenAI-compatible chat-completions client (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM):
 * always streams, reports tokens as they come, collects tool calls and usage, times out and
 * retries with backoff on 429, 5xx and transport errors before the first token.
 */
export class ChatModel extends Context.Tag("ChatModel")<ChatModel, ChatModelShape>() {
  static readonly layer = Layer.effect(
    ChatModel,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const client = yield* HttpClient.HttpClient
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
          const response = yield* providerPost(client, "Model", `${endpoint.baseUrl.replace(/\/$/, "")}/chat/completions`, endpoint.apiKey, body)
          const state = {
            text: "",
            model: request.model,
            usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } as TokenUsage,
            finish: null as string | null,
            calls: new Map<number, { id: string; name: string; arguments: string }>()
          }
          const onChunk = (chunk: StreamChunk) =>
            Effect.gen(function*() {
              if (chunk.error !== undefined) {
                return yield* new ModelError({ message: chunk.error.message ?? "model stream error", retryable: false })
              }
              if (chunk.model !== undefined) state.model = chunk.model
              if (chunk.usage) state.usage = chunk.usage
              for (const choice of chunk.choices ?? []) {
                if (choice.finish_reason) state.finish = choice.finish_reason
                const delta = choice.delta?.content
                if (typeof delta === "string" && delta.length > 0) {
                  state.text += delta
                  seen.token = true
                  if (request.onToken !== undefined) yield* request.onToken(delta)
                }
                for (const call of choice.delta?.tool_calls ?? []) {
                  const current = state.calls.get(call.index) ?? { id: "", name: "", arguments: "" }
                  state.calls.set(call.index, {
                    id: call.id ?? current.id,
                    name: current.name + (call.function?.name ?? ""),
                    arguments: current.arguments + (call.function?.arguments ?? "")
                  })
                }
              }
            })
          yield* response.stream.pipe(
            Stream.decodeText(),
            Stream.splitLines,
            Stream.filter((line) => line.startsWith("data:")),
            Stream.map((line) => line.slice(5).trim()),
            Stream.takeWhile((data) => data !== "[DONE]"),
            Stream.mapError((e) => new ModelError({ message: `Model stream broke: ${e.message}`, retryable: true })),
            Stream.runForEach((data) =>
              Effect.try({
                try: () => JSON.parse(data) as StreamChunk,
                catch: () => new ModelError({ message: "Model sent malformed stream data", retryable: false })
              }).pipe(Effect.flatMap(onChunk))
            )
          )
          return {
            model: state.model,
            text: state.text,
            toolCalls: Chunk.toReadonlyArray(Chunk.fromIterable(state.calls.values())).map((c) => ({ ...c })),
            usage: state.usage,
            finishReason: state.finish
          } satisfies ChatResult
        }).pipe(
          Effect.scoped,
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () => new ModelError({ message: `Model call timed out after ${Duration.format(timeout)}`, retryable: true })
          })
        )

      const complete = (request: ChatRequest) =>
        Effect.gen(function*() {
          const seen = { token: false }
          return yield* attempt(request, seen).pipe(
            Effect.retry({
              schedule: Schedule.exponential("250 millis", 2).pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(3))),
              // A retry after text went out would repeat it on the stream.
              while: (e) => e.retryable && !seen.token
            })
          )
        }).pipe(Effect.withSpan("ChatModel.complete", { attributes: { model: request.model } }))

      return { complete }
    })
  )
}
