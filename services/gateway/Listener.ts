import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { AppConfig } from "../../platform/Config.js"
import { StartupError } from "../../platform/StartupError.js"
import type { ErrorCode } from "../../schemas/ErrorCodes.js"

export class RawHttpServer extends Context.Tag("RawHttpServer")<RawHttpServer, Server>() {}

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** Before the platform is ready and after it stopped serving, every request gets a clear 503. */
const unavailable = (code: ErrorCode, message: string): Handler => (request, response) => {
  const requestId = randomUUID()
  request.resume()
  response.writeHead(503, {
    "content-type": "application/json",
    "retry-after": "1",
    "x-request-id": requestId,
    connection: "close"
  })
  response.end(JSON.stringify({ code, message, request_id: requestId }))
}

const starting = unavailable("STARTING", "The platform is starting; retry in a moment")
const stopping = unavailable("SHUTTING_DOWN", "The platform is shutting down")

const listenFailure = (error: NodeJS.ErrnoException, host: string, port: number) => {
  switch (error.code) {
    case "EADDRINUSE":
      return `Port ${port} on ${host} is already in use: stop the process using it or set PORT to a free port.`
    case "EACCES":
      return `Listening on ${host}:${port} is not permitted: use a PORT above 1023 or run with the right privileges.`
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
      return `HOST ${host} is not an address of this machine: set HOST to one of its addresses (127.0.0.1, 0.0.0.0).`
    default:
      return `Cannot listen on ${host}:${port} (${error.code ?? error.message}): check HOST and PORT.`
  }
}

/**
 * The HTTP listener comes up first, before the database, so that a client that connects while
 * the platform starts is answered (503 until ready) instead of left waiting. The platform's
 * handler takes over when the gateway serves.
 */
export const ListenerLive = Layer.scopedContext(
  Effect.gen(function*() {
    const config = yield* AppConfig
    let current: Handler = starting
    // Slow clients are cut off: headers must arrive within HEADERS_TIMEOUT_SECONDS and the whole
    // request within REQUEST_TIMEOUT_SECONDS (checked every second); idle keep-alive sockets close.
    const server = createServer({
      headersTimeout: config.headersTimeoutSeconds * 1000,
      requestTimeout: config.requestTimeoutSeconds * 1000,
      keepAliveTimeout: config.keepAliveTimeoutSeconds * 1000,
      connectionsCheckingInterval: 1000
    }, (request, response) => current(request, response))
    yield* Effect.acquireRelease(
      Effect.async<void, StartupError>((resume) => {
        server.once(
          "error",
          (error: NodeJS.ErrnoException) => resume(Effect.fail(new StartupError({ message: listenFailure(error, config.host, config.port) })))
        )
        server.listen(config.port, config.host, () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          if (!server.listening) return resume(Effect.void)
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    const address = server.address()
    const httpServer = HttpServer.make({
      address: typeof address === "object" && address !== null
        ? { _tag: "TcpAddress", hostname: address.address, port: address.port }
        : { _tag: "UnixAddress", path: String(address) },
      serve: (app, middleware) =>
        Effect.gen(function*() {
          const handler = middleware === undefined
            ? yield* NodeHttpServer.makeHandler(app)
            : yield* NodeHttpServer.makeHandler(app, middleware)
          current = handler
          yield* Effect.addFinalizer(() => Effect.sync(() => void (current = stopping)))
        })
    })
    return Context.make(HttpServer.HttpServer, httpServer).pipe(Context.add(RawHttpServer, server))
  })
).pipe(Layer.merge(NodeHttpServer.layerContext))
