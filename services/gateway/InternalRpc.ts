import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Effect, Layer, Option, Redacted } from "effect"
import { timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import { AppConfig } from "../../platform/Config.js"
import { StartupError } from "../../platform/StartupError.js"
import { AuthRpcs } from "../../schemas/rpc/AuthRpcs.js"
import { AuthRpcHandlers } from "../auth/Rpc.js"

export const AUTH_RPC_PATH = "/internal/rpc/auth"
export const INTERNAL_TOKEN_HEADER = "x-internal-token"

const sameToken = (sent: string | undefined, expected: string) => {
  const a = Buffer.from(sent ?? "")
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Internal RPC (the gateway asking auth who is calling) is served only by `ROLE=services`, on a
 * listener of its own (`INTERNAL_RPC_HOST`:`INTERNAL_RPC_PORT`, loopback by default), never on
 * the public port, and only to callers with `INTERNAL_RPC_TOKEN`: a start without one fails.
 */
export const InternalRpcLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (config.role !== "services") return
    if (Option.isNone(config.internalRpcToken)) {
      return yield* new StartupError({
        message: "ROLE=services serves internal RPC and needs INTERNAL_RPC_TOKEN: set it (the same secret on the gateways) and start again."
      })
    }
    const token = Redacted.value(config.internalRpcToken.value)
    const rpc = yield* RpcServer.toHttpApp(AuthRpcs)
    const app = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!request.url.startsWith(AUTH_RPC_PATH)) return HttpServerResponse.empty({ status: 404 })
      if (!sameToken(request.headers[INTERNAL_TOKEN_HEADER], token)) {
        return yield* HttpServerResponse.json({ code: "UNAUTHORIZED", message: "Internal RPC requires the internal token" }, { status: 401 })
      }
      return yield* Effect.scoped(rpc)
    })
    const server = yield* NodeHttpServer.make(() => createServer(), { port: config.internalRpcPort, host: config.internalRpcHost }).pipe(
      Effect.mapError(() =>
        new StartupError({
          message:
            `Internal RPC cannot listen on ${config.internalRpcHost}:${config.internalRpcPort} (in use or not permitted): set INTERNAL_RPC_PORT or INTERNAL_RPC_HOST.`
        })
      )
    )
    yield* server.serve(app)
    yield* Effect.log(`Internal RPC listening on http://${config.internalRpcHost}:${config.internalRpcPort}${AUTH_RPC_PATH}`)
  })
).pipe(Layer.provide(Layer.mergeAll(AuthRpcHandlers, RpcSerialization.layerNdjson)))
