import {
  Etag,
  FileSystem,
  HttpApiBuilder,
  HttpApiScalar,
  HttpIncomingMessage,
  HttpPlatform,
  type HttpRouter,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse,
  OpenApi,
  Path
} from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Cause, Context, Effect, FiberRef, Layer, Option, Scope } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig, type AppConfigShape } from "../../platform/Config.js"
import { CurrentRequest } from "../../platform/RequestContext.js"
import { PlatformApi } from "../../schemas/Api.js"
import { jsonProblem, urlHasNul } from "./BodyChecks.js"
import { applySessionCookies, preflight, ssoBrowserLanding, withCors } from "./BrowserFlow.js"
import { isConsolePath, loadConsole } from "./Console.js"
import { errorResponse, flattenErrorBody } from "./ErrorBodies.js"
import { RawHttpServer } from "./Listener.js"
import { databaseUnavailable, lostConflict, makeOutageReport } from "./Outage.js"
import { allowedMethods, pathOf } from "./Routes.js"

type ConsoleApp = Effect.Effect.Success<typeof loadConsole>
import { MetricsEndpoint } from "../../otel/MetricsLive.js"
import { Telemetry } from "../../otel/Telemetry.js"
import { Draining } from "../../platform/Draining.js"
import { NoRunners } from "../../runtime/run/Placement.js"
import { metricsRoute } from "./MetricsHttp.js"
import { observed } from "./RequestLog.js"

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

const isRequestError = (
  u: unknown
): u is { _tag: "RequestError"; reason: string; description?: string; cause?: { message?: string } } =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "RequestError"

const reportOutage = makeOutageReport()

/**
 * Failures the API layer did not turn into a response: unknown routes, unreadable bodies, the
 * database out of reach (503 with Retry-After, logged once), a transaction rolled back as a
 * deadlock's victim (503, Retry-After: 1; nothing was written), other defects (500).
 */
const causeToResponse = (cause: Cause.Cause<unknown>, request: HttpServerRequest.HttpServerRequest, requestId: string) =>
  Effect.gen(function*() {
    const failure = Cause.failureOption(cause)
    const defect = Cause.dieOption(cause)
    const error = Option.isSome(failure) ? failure.value : Option.getOrUndefined(defect)
    if (typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RouteNotFound") {
      const path = new URL(request.url, "http://gateway").pathname
      const allowed = allowedMethods(path)
      return allowed.length > 0
        ? errorResponse(405, requestId, {
          code: "METHOD_NOT_ALLOWED",
          message: `${request.method} is not allowed on ${path}`
        }, { allow: allowed.join(", ") })
        : errorResponse(404, requestId, { code: "NOT_FOUND", message: `No route for ${request.method} ${path}` })
    }
    if (isRequestError(error)) {
      const tooLarge = /maxBytes/i.test(`${error.description ?? ""} ${error.cause?.message ?? ""}`)
      return tooLarge
        ? errorResponse(413, requestId, { code: "PAYLOAD_TOO_LARGE", message: "Request body exceeds the size limit" })
        : errorResponse(400, requestId, { code: "INVALID_BODY", message: "The request body is not valid JSON" })
    }
    if (error instanceof NoRunners) {
      return errorResponse(503, requestId, { code: "NO_RUNNERS", message: "No runner process is up to run this yet; retry shortly" }, {
        "retry-after": String(error.retryAfterSeconds)
      })
    }
    if (Cause.isInterruptedOnly(cause)) return HttpServerResponse.empty({ status: 499 })
    const outage = databaseUnavailable(cause)
    if (outage !== undefined) {
      yield* reportOutage(outage)
      return errorResponse(503, requestId, { code: "UNAVAILABLE", message: "The service is temporarily unavailable; retry shortly" }, { "retry-after": "5" })
    }
    if (lostConflict(cause)) {
      yield* Effect.logWarning("A request's transaction lost a deadlock or a serialization conflict and was rolled back; answered 503", cause)
      return errorResponse(503, requestId, {
        code: "UNAVAILABLE",
        message: "The request collided with a concurrent change and nothing of it was saved; send it again"
      }, { "retry-after": "1" })
    }
    yield* Effect.logError("Unhandled request failure", cause)
    return errorResponse(500, requestId, { code: "INTERNAL_ERROR", message: "An internal error occurred" })
  })

/** The socket's peer; behind a trusted proxy (TRUST_PROXY), the first address of X-Forwarded-For. */
const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean) => {
  const forwarded = trustProxy ? request.headers["x-forwarded-for"]?.split(",")[0]?.trim() : undefined
  return forwarded !== undefined && forwarded !== "" ? forwarded : Option.getOrUndefined(request.remoteAddress)
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i

/** Refusals before anything is read: a refused preflight, a declared body over the limit, a NUL in the URL. */
const headRefusal = (config: AppConfigShape, request: HttpServerRequest.HttpServerRequest, requestId: string) => {
  const cors = preflight(config, request)
  if (cors === "refused") {
    return errorResponse(403, requestId, { code: "CORS_ORIGIN_NOT_ALLOWED", message: "This origin is not listed in CORS_ORIGINS" })
  }
  if (cors !== undefined) return cors
  if (Number(request.headers["content-length"] ?? "0") > config.maxBodyBytes) {
    return errorResponse(413, requestId, { code: "PAYLOAD_TOO_LARGE", message: `Request body exceeds ${config.maxBodyBytes} bytes` })
  }
  if (urlHasNul(request.url)) {
    return errorResponse(400, requestId, { code: "VALIDATION_ERROR", message: "The URL may not contain NUL (%00) characters" })
  }
  return undefined
}

/**
 * Refusals of a JSON body before decoding: a NUL in a string (PostgreSQL cannot store it) and
 * nesting deeper than MAX_JSON_DEPTH. The body read here is the one the API decodes (the request
 * caches it); a body that cannot be read is left to the API's own answer.
 */
const bodyRefusal = (request: HttpServerRequest.HttpServerRequest, requestId: string, maxDepth: number) =>
  Effect.map(Effect.option(request.text), (text) => {
    if (text._tag === "None") return undefined
    switch (jsonProblem(text.value, maxDepth)) {
      case "nul":
        return errorResponse(400, requestId, { code: "VALIDATION_ERROR", message: "Text may not contain NUL (\\u0000) characters" })
      case "too_deep":
        return errorResponse(400, requestId, { code: "INVALID_BODY", message: `JSON may not be nested deeper than ${maxDepth} levels` })
      default:
        return undefined
    }
  })

/**
 * Request ids, body limits, CORS, 404/405, browser session cookies and the flat error body around
 * the API app. Every request pays this: it is written with as few effects as it can.
 */
const gatewayApp = <R>(
  api: HttpApp.Default<never, R>,
  options: {
    readonly config: AppConfigShape
    readonly console: ConsoleApp
    readonly metrics: ReturnType<typeof metricsRoute>
  }
): HttpApp.Default<never, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const { config } = options
    const inbound = request.headers["x-request-id"]
    const requestId = inbound !== undefined && REQUEST_ID.test(inbound) ? inbound : randomUUID()
    const finish = (response: HttpServerResponse.HttpServerResponse) =>
      HttpServerResponse.setHeaders(withCors(config, request, response), { "x-request-id": requestId, "x-content-type-options": "nosniff" })
    const refused = headRefusal(config, request, requestId)
    if (refused !== undefined) return Effect.succeed(finish(refused))
    const path = pathOf(request.url)
    if (path === "/metrics") return Effect.map(options.metrics(request, requestId), finish)
    const page = (request.method === "GET" || request.method === "HEAD") && isConsolePath(path)
      ? options.console.serve(request, path)
      : undefined
    if (page !== undefined) return Effect.succeed(finish(page))
    const settle = (response: HttpServerResponse.HttpServerResponse) =>
      finish(ssoBrowserLanding(request, path, applySessionCookies(config, request, path, flattenErrorBody(response, requestId))))
    // Set, not `locally`: the request's fiber ends with it, so nothing needs restoring.
    const serve = FiberRef.set(CurrentRequest, { requestId, clientAddress: clientAddress(request, config.trustProxy) }).pipe(
      Effect.zipRight(Effect.matchCauseEffect(api, {
        onFailure: (cause) => Effect.map(causeToResponse(cause, request, requestId), settle),
        onSuccess: (response) => Effect.succeed(settle(response))
      }))
    )
    if (!JSON_TYPE.test(request.headers["content-type"] ?? "")) return serve
    return Effect.flatMap(bodyRefusal(request, requestId, config.maxJsonDepth), (r) => r === undefined ? serve : Effect.succeed(finish(r)))
  })

/** The public HTTP server: every service's HttpApi group, OpenAPI and /docs. */
export const serveGateway = Effect.gen(function*() {
  const config = yield* AppConfig
  const api = yield* HttpApiBuilder.httpApp
  const server = yield* RawHttpServer
  const draining = yield* Draining
  const telemetry = yield* Telemetry
  const console = yield* loadConsole
  const metrics = metricsRoute(yield* MetricsEndpoint, config.metricsToken)
  // Runs before the services and the database close: no new connection is accepted, event
  // streams end, in-flight requests get the grace period, then are cut.
  yield* Effect.addFinalizer(() =>
    Effect.logWarning(
      `Shutting down (ROLE=${config.role}): no new connections, event streams end, requests in flight have ${config.shutdownGraceSeconds} s` +
        (config.role === "runners" || config.role === "all"
          ? "; runs in flight stop at their last checkpoint and continue on the next start or another runner"
          : "")
    ).pipe(
      Effect.zipRight(draining.begin),
      Effect.zipRight(Effect.async<void>((resume) => {
        // Keep-alive connections turn idle as their last response goes out: close them as they do.
        const idle = setInterval(() => server.closeIdleConnections(), 100)
        const cut = setTimeout(() => server.closeAllConnections(), config.shutdownGraceSeconds * 1000)
        server.close(() => {
          clearInterval(idle)
          clearTimeout(cut)
          resume(Effect.void)
        })
        server.closeIdleConnections()
      }))
    )
  )
  yield* HttpServer.serveEffect(observed(gatewayApp(api, { config, console, metrics }), config.logFormat === "json")).pipe(
    // Also bounds bodies sent without Content-Length (chunked).
    HttpIncomingMessage.withMaxBodySize(Option.some(config.maxBodyBytes)),
    // Requests run in the context they are served from: only what serving needs, not every service
    // (each span and fork of a request copies or compares it).
    Effect.mapInputContext((context: Context.Context<HttpServer.HttpServer | Scope.Scope | HttpRouter.HttpRouter.DefaultServices>) =>
      Context.pick(HttpServer.HttpServer, Scope.Scope, HttpPlatform.HttpPlatform, Etag.Generator, FileSystem.FileSystem, Path.Path)(context)
    ),
    // With no OTLP export, a request's spans would be dropped at their end (only spans of runs are
    // kept, and runs trace in their own fibers): requests then make none at all. Requests inherit
    // this from the fiber that starts serving.
    Effect.withTracerEnabled(telemetry.exporting)
  )
})

/** The OpenAPI document naming this deployment (PUBLIC_BASE_URL) as its server; derived once a process. */
const OpenApiJsonLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { publicBaseUrl } = yield* AppConfig
    const { openapi, info, ...rest } = OpenApi.fromApi(PlatformApi)
    const document = { openapi, info, servers: [{ url: publicBaseUrl, description: "This deployment (PUBLIC_BASE_URL)" }], ...rest }
    const response = yield* Effect.orDie(HttpServerResponse.json(document))
    yield* router.get("/api/v1/openapi.json", Effect.succeed(response))
  })
)

export const ApiRouterLive = Layer.mergeAll(
  HttpApiBuilder.Router.Live,
  HttpApiBuilder.Middleware.layer,
  HttpApiScalar.layer({ path: "/docs" }),
  OpenApiJsonLive
)

export { PlatformApi }
