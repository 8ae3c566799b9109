import { FetchHttpClient, HttpApiClient, HttpApiSchema, HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Effect, type Layer, type Schema } from "effect"
import { PlatformApi } from "../schemas/Api.js"
import * as Errors from "../schemas/Errors.js"

// The server sends errors flat ({code, message, request_id}): the client tells their class by status.
const tagByStatus = new Map(Errors.ErrorTags.map((tag) => [HttpApiSchema.getStatusError(Errors[tag] as Schema.Schema.All), tag]))

const tagged = (response: HttpClientResponse.HttpClientResponse) => {
  const tag = tagByStatus.get(response.status)
  if (tag === undefined || !(response.headers["content-type"] ?? "").includes("json")) return Effect.succeed(response)
  return Effect.map(Effect.orElseSucceed(response.json, () => undefined), (body) =>
    typeof body !== "object" || body === null
      ? response
      : HttpClientResponse.fromWeb(
        response.request,
        new Response(JSON.stringify({ ...body, _tag: tag }), {
          status: response.status,
          headers: response.headers
        })
      ))
}

export { PlatformApi }

export interface ClientOptions {
  /** The platform's address, e.g. `https://builder.example.com` (its PUBLIC_BASE_URL). */
  readonly baseUrl: string
  /** An access token (`POST /api/v1/auth/login`) or an API key, sent as `Authorization: Bearer`. */
  readonly token?: string | undefined
}

/**
 * A typed client of the whole API, derived from the schemas the server is built from: one method
 * per operation, grouped as the API is (`client.workflows.list`, `client.runs.run`, ...), request
 * and response bodies decoded by the same schemas, errors as their tagged classes (`NotFound`,
 * `Conflict`, ...). Needs an `HttpClient`: `ClientLive` (fetch) or your own.
 */
export const makeClient = (options: ClientOptions) =>
  HttpApiClient.make(PlatformApi, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      HttpClient.transformResponse(
        options.token === undefined ? client : HttpClient.mapRequest(client, HttpClientRequest.bearerToken(options.token)),
        Effect.flatMap(tagged)
      )
  })

/** The client's HTTP transport: the runtime's `fetch`. */
export const ClientLive: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer

/** `makeClient`, with `fetch` provided: for a program that only talks to the platform. */
export const withClient = <A, E>(options: ClientOptions, use: (client: Effect.Effect.Success<ReturnType<typeof makeClient>>) => Effect.Effect<A, E>) =>
  Effect.flatMap(makeClient(options), use).pipe(Effect.provide(ClientLive))
