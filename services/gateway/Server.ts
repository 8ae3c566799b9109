import { createServer, type Server } from "node:http"
import { randomUUID } from "node:crypto"
import {
  HttpApiBuilder,
  HttpApiScalar,
  HttpIncomingMessage,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Cause, Context, Effect, Layer, Option, Redacted } from "effect"
import { PlatformApi } from "../../schemas/Api.js"
import { AuthRpcs } from "../../schemas/rpc/AuthRpcs.js"
import { AuthRpcHandlers } from "../auth/Rpc.js"
import { AppConfig } from "../shared/Config.js"
import { CurrentRequestId } from "../shared/RequestContext.js"
import { errorResponse, flattenErrorBody } from "./ErrorBodies.js"
import { allowedMethods } from "./Routes.js"

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
export const AUTH_RPC_PATH = "/internal/rpc/auth"
export const INTERNAL_TOKEN_HEADER = "x-internal-token"

const isRequestError = (
  u: unknown
): u is { _tag: "RequestError"; reason: string; description?: string; cause?: { message?: string } } =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "RequestError"

/** Failures the API layer did not turn into a response: unknown routes, unreadable bodies, defects. */
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
    if (Cause.isInterruptedOnly(cause)) return HttpServerResponse.empty({ status: 499 })
    yield* Effect.logError("Unhandled request failure", cause)
    return errorResponse(500, requestId, { code: "INTERNAL_ERROR", message: "An internal error occurred" })
  })

/** Request ids, body limits, 404/405 and the flat error body around the API app. */
const gatewayApp = <R>(
  api: HttpApp.Default<never, R>,
  rpc: HttpApp.Default<never, R>,
  options: { readonly maxBodyBytes: number; readonly internalToken: string | undefined }
): HttpApp.Default<never, R> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const inbound = request.headers["x-request-id"]
    const requestId = inbound !== undefined && REQUEST_ID.test(inbound) ? inbound : randomUUID()
    const length = Number(request.headers["content-length"] ?? "0")
    const isRpc = request.url.startsWith(AUTH_RPC_PATH)
    const response = length > options.maxBodyBytes
      ? errorResponse(413, requestId, {
        code: "PAYLOAD_TOO_LARGE",
        message: `Request body exceeds ${options.maxBodyBytes} bytes`
      })
      : isRpc && options.internalToken !== undefined && request.headers[INTERNAL_TOKEN_HEADER] !== options.internalToken
      ? errorResponse(401, requestId, { code: "UNAUTHORIZED", message: "Internal RPC requires the internal token" })
      : yield* (isRpc ? rpc : api).pipe(
        Effect.locally(CurrentRequestId, requestId),
        Effect.catchAllCause((cause) => causeToResponse(cause, request, requestId)),
        Effect.flatMap((r) => flattenErrorBody(r, requestId))
      )
    return HttpServerResponse.setHeader(response, "x-request-id", requestId)
  })

/** The one HTTP server: every service's HttpApi group, OpenAPI, /docs and the internal RPC mount. */
export const serveGateway = Effect.gen(function*() {
  const config = yield* AppConfig
  const api = yield* HttpApiBuilder.httpApp
  const rpc = yield* RpcServer.toHttpApp(AuthRpcs)
  const server = yield* RawHttpServer
  // Runs before the server's own close: in-flight requests get the grace period, then are cut.
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      // Keep-alive connections turn idle as their last response goes out: close them as they do.
      server.closeIdleConnections()
      setInterval(() => server.closeIdleConnections(), 100).unref()
      setTimeout(() => server.closeAllConnections(), config.shutdownGraceSeconds * 1000).unref()
    })
  )
  yield* HttpServer.serveEffect(gatewayApp(api, Effect.scoped(rpc), {
    maxBodyBytes: config.maxBodyBytes,
    internalToken: Option.getOrUndefined(Option.map(config.internalRpcToken, Redacted.value))
  })).pipe(
    // Also bounds bodies sent without Content-Length (chunked).
    HttpIncomingMessage.withMaxBodySize(Option.some(config.maxBodyBytes))
  )
  yield* HttpServer.logAddress
})

export class RawHttpServer extends Context.Tag("RawHttpServer")<RawHttpServer, Server>() {}

export const ApiRouterLive = Layer.mergeAll(
  HttpApiBuilder.Router.Live,
  HttpApiBuilder.Middleware.layer,
  HttpApiScalar.layer({ path: "/docs" }),
  HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" })
)

export const NodeServerLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const server = createServer()
    return Layer.merge(
      NodeHttpServer.layer(() => server, { port: config.port, host: config.host }),
      Layer.succeed(RawHttpServer, server)
    )
  })
)

export const RpcServingLive = Layer.mergeAll(AuthRpcHandlers, RpcSerialization.layerNdjson)

export { PlatformApi }
