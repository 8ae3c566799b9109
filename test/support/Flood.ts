import { Effect } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A hostile peer's answer: `piece()` written into `res` until `total` characters went out or the
 * client hung up, honouring backpressure; `onSent` counts what was written.
 */
export const flood = async (res: ServerResponse, total: number, piece: () => string, onSent: (chars: number) => void) => {
  let closed = false
  res.on("close", () => {
    closed = true
  })
  let written = 0
  while (!closed && written < total) {
    const chunk = piece()
    written += chunk.length
    onSent(chunk.length)
    if (!res.write(chunk)) {
      // Drained or closed: the other listener goes, so that they do not pile up on the response.
      await new Promise<void>((r) => {
        const done = () => {
          res.off("drain", done).off("close", done)
          r()
        }
        res.once("drain", done).once("close", done)
      })
    }
  }
  if (!closed) res.end()
}

/**
 * A loopback server for hostile answers, closed with the scope: `handle` answers each request and
 * reports what it wrote through `count`; `sent()` is the total.
 */
export const hostileServer = (handle: (req: IncomingMessage, res: ServerResponse, count: (chars: number) => void) => void, host = "127.0.0.1") =>
  Effect.acquireRelease(
    Effect.async<{ baseUrl: string; sent: () => number; close: () => void }>((resume) => {
      let sent = 0
      const count = (chars: number) => {
        sent += chars
      }
      const server = createServer((req, res) => handle(req, res, count))
      server.listen(0, host, () =>
        resume(Effect.succeed({
          baseUrl: `http://${host}:${(server.address() as AddressInfo).port}`,
          sent: () => sent,
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        })))
    }),
    (peer) => Effect.sync(peer.close)
  )
