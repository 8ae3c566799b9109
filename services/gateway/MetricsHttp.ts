import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Redacted } from "effect"
import { timingSafeEqual } from "node:crypto"
import type { MetricsEndpoint } from "../../otel/MetricsLive.js"
import { errorResponse } from "./ErrorBodies.js"

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * `GET /metrics`: every metric in the Prometheus text format. Open like `/health` (it holds
 * counts, never tenant data) unless `METRICS_TOKEN` is set, then only with that bearer token.
 */
export const metricsRoute =
  (endpoint: MetricsEndpoint, token: Option.Option<Redacted.Redacted>) => (request: HttpServerRequest.HttpServerRequest, requestId: string) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return Effect.succeed(
        errorResponse(405, requestId, { code: "METHOD_NOT_ALLOWED", message: `${request.method} is not allowed on /metrics` }, { allow: "GET, HEAD" })
      )
    }
    if (Option.isSome(token) && !sameSecret(request.headers.authorization ?? "", `Bearer ${Redacted.value(token.value)}`)) {
      return Effect.succeed(errorResponse(401, requestId, { code: "UNAUTHORIZED", message: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>" }))
    }
    return Effect.map(
      endpoint.scrape,
      (text) => HttpServerResponse.text(text, { contentType: "text/plain; version=0.0.4; charset=utf-8", headers: { "cache-control": "no-store" } })
    )
  }
