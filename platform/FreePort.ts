import { Effect } from "effect"
import * as net from "node:net"

/** A TCP port free on loopback right now. */
export const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})
