import { HttpBody, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { refusalIn } from "../../platform/outbound/OutboundGuard.js"
import { ModelError } from "./ModelError.js"

/**
 * A JSON POST to an OpenAI-compatible endpoint. Transport errors, 429 and 5xx are retryable
 * ModelErrors; other 4xx are not. Needs a scope: the response body is read by the caller.
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
      const text = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
      return yield* new ModelError({
        message: `${what} answered ${response.status}: ${text.slice(0, 500)}`,
        status: response.status,
        retryable: response.status === 429 || response.status >= 500
      })
    }
    return response
  })
