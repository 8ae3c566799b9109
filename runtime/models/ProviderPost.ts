import { HttpBody, type HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Effect, Stream } from "effect"
import { refusalIn } from "../../platform/outbound/OutboundGuard.js"
import { MAX_ERROR_BODY_BYTES, MAX_STREAM_BYTES } from "./EventStreamPost.js"
import { ModelError } from "./ModelError.js"

const utf8 = (parts: ReadonlyArray<Uint8Array>) => Buffer.concat(parts).toString("utf8")

/** An error body: its first MAX_ERROR_BODY_BYTES, the rest left unread. */
const errorText = (response: HttpClientResponse.HttpClientResponse) =>
  response.stream.pipe(
    Stream.runFoldWhile({ parts: [] as Array<Uint8Array>, size: 0 }, (acc) => acc.size < MAX_ERROR_BODY_BYTES, (acc, chunk) => {
      acc.parts.push(chunk)
      acc.size += chunk.byteLength
      return acc
    }),
    Effect.map((acc) => utf8(acc.parts).slice(0, MAX_ERROR_BODY_BYTES)),
    Effect.orElseSucceed(() => "")
  )

/**
 * A JSON answer of at most MAX_STREAM_BYTES: a provider that sends more is refused (not
 * retried) once that much has arrived, instead of being held in memory whole.
 */
export const answerJson = (response: HttpClientResponse.HttpClientResponse, what: string) =>
  response.stream.pipe(
    Stream.mapError((e) => new ModelError({ message: `${what} answer broke off: ${e.message}`, retryable: true })),
    Stream.runFoldEffect({ parts: [] as Array<Uint8Array>, size: 0 }, (acc, chunk) => {
      acc.size += chunk.byteLength
      if (acc.size > MAX_STREAM_BYTES) {
        return Effect.fail(new ModelError({ message: `${what} answer refused: larger than ${MAX_STREAM_BYTES} bytes`, retryable: false }))
      }
      acc.parts.push(chunk)
      return Effect.succeed(acc)
    }),
    Effect.flatMap((acc) =>
      Effect.try({
        try: (): unknown => JSON.parse(utf8(acc.parts)),
        catch: () => new ModelError({ message: `${what} answer is malformed`, retryable: false })
      })
    )
  )

/**
 * A JSON POST to an OpenAI-compatible endpoint. Transport errors, 429 and 5xx are retryable
 * ModelErrors; other 4xx are not (an error body is read up to MAX_ERROR_BODY_BYTES). Needs a
 * scope: the response body is read by the caller, with `answerJson`.
 */
export const providerPost = (
  client: HttpClient.HttpClient,
  what: string,
  url: string,
  apiKey: string | undefined,
  body: unknown
) =>
  Effect.gen(function*() {
    let request = HttpClientRequest.post(url).pipe(HttpClientRequest.setBody(HttpBody.unsafeJson(body)), HttpClientRequest.acceptJson)
    if (apiKey !== undefined) request = HttpClientRequest.bearerToken(request, apiKey)
    const response = yield* client.execute(request).pipe(
      Effect.mapError((e) => {
        const refused = refusalIn(e)
        return refused !== undefined
          ? new ModelError({ message: `${refused.code}: ${refused.message}`, code: refused.code, retryable: false })
          : new ModelError({ message: `${what} request failed: ${e.message}`, retryable: true })
      })
    )
    if (response.status >= 400) {
      const text = yield* errorText(response)
      return yield* new ModelError({
        message: `${what} answered ${response.status}: ${text.slice(0, 500)}`,
        status: response.status,
        retryable: response.status === 429 || response.status >= 500
      })
    }
    return response
  })
