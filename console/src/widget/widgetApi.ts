import { FetchHttpClient, HttpApi, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Cause, Effect, Either, Exit, Layer, ManagedRuntime, Option, Schema } from "effect"
import { createParser } from "eventsource-parser"
import type { EmbedConfig, MessageAccepted } from "../../../schemas/Chat"
import { ChatApi } from "../../../schemas/ChatApi"
import { RunStreamEvent } from "../../../schemas/RunLifecycle"

/** The one group of the contract the widget calls (schemas/ChatApi.ts), with the widget key it was given. */
const WidgetApi = HttpApi.make("builder-platform").add(ChatApi)

export type Embed = typeof EmbedConfig.Type
export type Accepted = MessageAccepted
export type StreamEvent = RunStreamEvent

/** Why a call failed, as the API's error body says it. */
export class WidgetError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

const decodeEvent = Schema.decodeUnknownEither(Schema.parseJson(RunStreamEvent))

/**
 * The widget's calls, from the customer's page to the platform: never with cookies (the widget key
 * is the only credential, and the platform answers these routes to any origin without credentials).
 */
export const makeWidgetApi = (base: string, key: string) => {
  const runtime = ManagedRuntime.make(Layer.merge(FetchHttpClient.layer, Layer.succeed(FetchHttpClient.RequestInit, { credentials: "omit" })))
  const makeClient = HttpApiClient.make(WidgetApi, {
    baseUrl: base,
    transformClient: (c) =>
      c.pipe(
        HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", key)),
        // No trace context from a visitor's page: its preflight would have to allow the header, and the platform starts its own trace.
        HttpClient.withTracerPropagation(false),
        HttpClient.transformResponse(Effect.flatMap((response) =>
          response.status < 400 ? Effect.succeed(response) : Effect.flatMap(Effect.orElseSucceed(response.json, () => ({})), (body) => {
            const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>
            const message = typeof b.message === "string" ? b.message : `The request failed (${response.status})`
            return Effect.die(new WidgetError(response.status, typeof b.code === "string" ? b.code : `HTTP_${response.status}`, message))
          })
        ))
      )
  })
  type Client = Effect.Effect.Success<typeof makeClient>
  const ready = runtime.runPromise(makeClient)

  const run = async <A, E>(f: (c: Client) => Effect.Effect<A, E>): Promise<A> => {
    const exit = await runtime.runPromiseExit(f(await ready))
    if (Exit.isSuccess(exit)) return exit.value
    const defect = Option.getOrUndefined(Cause.dieOption(exit.cause))
    throw defect instanceof WidgetError ? defect : new WidgetError(0, "NETWORK", "The assistant cannot be reached right now")
  }

  return {
    config: (workflowId: string) => run((c) => c.chat.embedConfig({ path: { workflow_id: workflowId as never } })),
    send: (body: { workflow_id: string; message: string; external_user_id: string; conversation_id: string }) =>
      run((c) => c.chat.externalChat({ payload: { ...body, workflow_id: body.workflow_id as never }, headers: {} })),
    feedback: (messageId: string, sentiment: "positive" | "negative", category?: string) =>
      run((c) => c.chat.feedback({ path: { message_id: messageId as never }, payload: category === undefined ? { sentiment } : { sentiment, category } })),
    /**
     * A run's events until its end (fetch, since EventSource cannot send the key): a dropped
     * connection is opened again with Last-Event-ID, and no event is handed over twice.
     */
    follow: async (runId: string, onEvent: (event: StreamEvent) => void, signal: AbortSignal) => {
      let last = 0
      let ended = false
      for (let attempt = 0; !ended && attempt < 5 && !signal.aborted; attempt++) {
        const response = await fetch(`${base}/api/v1/chat/runs/${runId}/stream`, {
          headers: { "x-api-key": key, accept: "text/event-stream", ...(last > 0 ? { "last-event-id": String(last) } : {}) },
          credentials: "omit",
          signal
        }).catch(() => undefined)
        // The run ended at or before `last`: nothing more will come.
        if (response?.status === 204) break
        if (response?.body == null || !response.ok) {
          await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)))
          continue
        }
        const parser = createParser({
          onEvent: (message) => {
            const id = Number(message.id)
            if (Number.isFinite(id) && id <= last) return
            if (Number.isFinite(id)) last = id
            const decoded = decodeEvent(message.data)
            if (Either.isLeft(decoded)) return
            if (["run_completed", "run_failed", "run_cancelled", "run_skipped"].includes(decoded.right.type)) ended = true
            onEvent(decoded.right)
          }
        })
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
        for (;;) {
          const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }))
          if (chunk.done) break
          parser.feed(chunk.value)
        }
      }
    }
  }
}

export type WidgetApiClient = ReturnType<typeof makeWidgetApi>
