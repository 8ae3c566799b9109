import { HttpBody, HttpClient, HttpClientRequest } from "@effect/platform"
import { Chunk, Context, Duration, Effect, Layer, Option, Redacted, Schedule, Schema, Stream } from "effect"
import { AppConfig } from "../../services/shared/Config.js"

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

export class ModelError extends Schema.TaggedError<ModelError>()("ModelError", {
  message: Schema.String,
  status: Schema.optional(Schema.Number),
  retryable: Schema.Boolean
}) {}

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
              ? { response_format: { type: "json_schema", json_schema: { name: request.jsonSchema.name, schema: request.jsonSchema.schema, strict: true } } }
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
          let http = HttpClientRequest.post(`${endpoint.baseUrl.replace(/\/$/, "")}/chat/completions`).pipe(
            HttpClientRequest.setBody(HttpBody.unsafeJson(body)),
            HttpClientRequest.acceptJson
          )
          if (endpoint.apiKey !== undefined) http = HttpClientRequest.bearerToken(http, endpoint.apiKey)
          const response = yield* client.execute(http).pipe(
            Effect.mapError((e) => new ModelError({ message: `Model request failed: ${e.message}`, retryable: true }))
          )
          if (response.status >= 400) {
            const text = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
            return yield* new ModelError({
              message: `Model answered ${response.status}: ${text.slice(0, 500)}`,
              status: response.status,
              retryable: response.status === 429 || response.status >= 500
            })
          }
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
