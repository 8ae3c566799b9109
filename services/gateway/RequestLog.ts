import type { HttpApp } from "@effect/platform"
import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Effect, Metric } from "effect"
import { gaugeAdd, httpServerActive, httpServerDuration } from "../../otel/Metrics.js"
import { pathOf, routeTemplate } from "./Routes.js"

/**
 * Every request's duration (to its response head: an event stream counts until it opened) in
 * `http.server.request.duration` by method, route template and status, the requests in flight,
 * and, with `accessLog` (LOG_FORMAT=json), one info line per request.
 */
export const observed = <R>(app: HttpApp.Default<never, R>, accessLog: boolean): HttpApp.Default<never, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const started = performance.now()
    const done = (response: HttpServerResponse.HttpServerResponse) =>
      Effect.suspend(() => {
        const seconds = (performance.now() - started) / 1000
        const route = routeTemplate(request.method, pathOf(request.url))
        const status = String(response.status)
        const recorded = Metric.update(
          httpServerDuration(["http.request.method", request.method], ["http.route", route], ["http.response.status_code", status]),
          seconds
        )
        if (!accessLog) return recorded
        return Effect.zipRight(
          recorded,
          Effect.logInfo("request").pipe(Effect.annotateLogs({
            method: request.method,
            route,
            status: response.status,
            duration_ms: Math.round(seconds * 10_000) / 10,
            request_id: response.headers["x-request-id"] ?? ""
          }))
        )
      })
    return Effect.zipRight(gaugeAdd(httpServerActive, 1), Effect.tap(app, done)).pipe(Effect.ensuring(gaugeAdd(httpServerActive, -1)))
  })
