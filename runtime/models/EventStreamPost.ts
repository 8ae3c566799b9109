import { Duration, Effect } from "effect"
import type { Dispatcher } from "undici"
import { annotateSpan } from "../../otel/FiberSpan.js"
import { refusalIn } from "../../platform/outbound/OutboundGuard.js"
import { ModelError } from "./ModelError.js"
import { retryAfterMs } from "./ProviderGate.js"

/** The `data:` payloads of a server-sent event stream, a network chunk at a time. */
export interface EventData {
  /** The next payloads (possibly none); `undefined` once the stream has ended. */
  readonly next: Effect.Effect<ReadonlyArray<string> | undefined, ModelError>
  /**
   * Waits briefly for the end of the response after the last event ([DONE]), so that the
   * connection goes back to the pool instead of being aborted.
   */
  readonly finish: Effect.Effect<void>
}

/** What a model server may send: an error body is read this far, a stream line and a whole answer up to these. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024
export const MAX_LINE_BYTES = 1024 * 1024
export const MAX_STREAM_BYTES = 32 * 1024 * 1024

/** At most `cap` bytes of a body as text; the rest is not read (the request is aborted by the caller). */
const capped = async (body: AsyncIterable<Buffer>, cap: number) => {
  const chunks: Array<Buffer> = []
  let size = 0
  for await (const chunk of body) {
    chunks.push(chunk)
    size += chunk.byteLength
    if (size >= cap) break
  }
  return Buffer.concat(chunks).subarray(0, cap).toString("utf8")
}

const transportError = (what: string, error: unknown, timedOut: ModelError | undefined) => {
  if (timedOut !== undefined) return timedOut
  const refused = refusalIn(error)
  return refused !== undefined
    ? new ModelError({ message: `${refused.code}: ${refused.message}`, code: refused.code, retryable: false })
    : new ModelError({ message: `${what} request failed: ${error instanceof Error ? error.message : String(error)}`, retryable: true })
}

/**
 * A JSON POST to an OpenAI-compatible endpoint answered with a server-sent event stream, handed
 * to `use`; on undici directly: the response body is read a network chunk at a time and split
 * into lines by hand (a model call is on every agent step's path; an Effect Stream per response
 * cost several times the request itself). Transport errors, 429 and 5xx are retryable
 * ModelErrors, other 4xx not. The response is released when `use` ends; interrupting the fiber
 * aborts the request; after `timeout` it is aborted and fails as timed out.
 */
export const withEventStream = <A>(
  request: {
    readonly dispatcher: Dispatcher
    readonly what: string
    readonly url: string
    readonly apiKey: string | undefined
    readonly body: unknown
    readonly timeout: Duration.Duration
  },
  use: (events: EventData) => Effect.Effect<A, ModelError>
): Effect.Effect<A, ModelError> =>
  Effect.suspend(() => {
    const { apiKey, dispatcher, timeout, what } = request
    const target = new URL(request.url)
    const controller = new AbortController()
    let ended = false
    let timedOut: ModelError | undefined
    // A plain timer: an Effect timeout races a fiber per call, a measurable cost on every agent step.
    const timer = setTimeout(() => {
      timedOut = new ModelError({ message: `${what} call timed out after ${Duration.format(timeout)}`, retryable: true })
      controller.abort()
    }, Duration.toMillis(timeout))
    // An unfinished response (interrupted, or left before its end) is aborted; a finished one is already released.
    const release = Effect.sync(() => {
      clearTimeout(timer)
      if (!ended) controller.abort()
    })
    const open = Effect.gen(function*() {
      const response = yield* Effect.tryPromise({
        try: (signal) => {
          signal.addEventListener("abort", () => controller.abort(), { once: true })
          return dispatcher.request({
            origin: target.origin,
            path: `${target.pathname}${target.search}`,
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "text/event-stream, application/json",
              ...(apiKey !== undefined ? { authorization: `Bearer ${apiKey}` } : {})
            },
            body: JSON.stringify(request.body),
            signal: controller.signal
          })
        },
        catch: (error) => transportError(what, error, timedOut)
      })
      response.body.on("error", () => {})
      yield* annotateSpan({ "http.response.status_code": response.statusCode })
      if (response.statusCode >= 400) {
        const text = yield* Effect.promise(() => capped(response.body, MAX_ERROR_BODY_BYTES).catch(() => ""))
        if (timedOut !== undefined) return yield* timedOut
        const after = response.statusCode === 429 || response.statusCode === 503 ? retryAfterMs(response.headers["retry-after"]) : undefined
        return yield* new ModelError({
          message: `${what} answered ${response.statusCode}: ${text.slice(0, 500)}`,
          status: response.statusCode,
          retryable: response.statusCode === 429 || response.statusCode >= 500,
          ...(after === undefined ? {} : { retryAfterMs: after })
        })
      }
      const chunks = response.body[Symbol.asyncIterator]()
      const decoder = new TextDecoder()
      let pending = ""
      let received = 0
      const tooLarge = (why: string) => {
        controller.abort()
        return Effect.fail(new ModelError({ message: `${what} answer refused: ${why}`, retryable: false }))
      }
      const next = Effect.tryPromise({
        try: () => chunks.next() as Promise<IteratorResult<Buffer>>,
        catch: (error) =>
          timedOut ?? new ModelError({ message: `${what} stream broke: ${error instanceof Error ? error.message : String(error)}`, retryable: true })
      }).pipe(Effect.flatMap((chunk): Effect.Effect<ReadonlyArray<string> | undefined, ModelError> => {
        if (chunk.done === true) {
          ended = true
          const rest = pending.trim()
          pending = ""
          return Effect.succeed(rest.startsWith("data:") ? [rest.slice(5).trim()] : rest === "" ? undefined : [])
        }
        received += chunk.value.byteLength
        if (received > MAX_STREAM_BYTES) return tooLarge(`over ${MAX_STREAM_BYTES} bytes`)
        pending += decoder.decode(chunk.value, { stream: true })
        const lines = pending.split("\n")
        pending = lines.pop() ?? ""
        if (pending.length > MAX_LINE_BYTES) return tooLarge(`a line over ${MAX_LINE_BYTES} bytes`)
        const data: Array<string> = []
        for (const line of lines) if (line.startsWith("data:")) data.push(line.slice(5).trim())
        return Effect.succeed(data)
      }))
      const finish = Effect.promise(() =>
        new Promise<void>((resolve) => {
          const wait = setTimeout(resolve, 1000)
          const settle = (chunk?: IteratorResult<unknown>) => {
            if (chunk?.done === true) ended = true
            clearTimeout(wait)
            resolve()
          }
          chunks.next().then(settle, () => settle())
        })
      )
      return { next, finish } satisfies EventData
    })
    // The client span covers the request up to the response head, as an HTTP client's does.
    const opened = open.pipe(Effect.withSpan("http.client POST", {
      kind: "client",
      attributes: { "http.request.method": "POST", "server.address": target.hostname, "url.path": target.pathname, "url.scheme": target.protocol.slice(0, -1) },
      captureStackTrace: false
    }))
    return Effect.ensuring(Effect.flatMap(opened, use), release)
  })
