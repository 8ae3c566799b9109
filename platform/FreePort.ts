import { Effect } from "effect"
import * as net from "node:net"

/**
 * Where free ports are looked for: below the kernel's ephemeral range (Linux: 32768-60999), from
 * which outgoing connections take their local ports. A port of that range, free when checked, can
 * be taken by a connection before the process it is for binds it (seconds later for a PostgreSQL
 * or a platform starting), which then fails with "address already in use".
 */
const LOWEST = 20_000
const HIGHEST = 32_767
const TRIES = 50

/** Whether `port` can be listened on on loopback right now (it is closed again at once). */
const listenable = (port: number) =>
  Effect.async<number | undefined>((resume) => {
    const server = net.createServer()
    server.once("error", () => resume(Effect.succeed(undefined)))
    server.listen(port, "127.0.0.1", () => {
      const address = server.address()
      const bound = typeof address === "object" && address !== null ? address.port : undefined
      server.close(() => resume(Effect.succeed(bound)))
    })
  })

/** A TCP port free on loopback right now, outside the ephemeral range when one is found there. */
export const freePort = Effect.gen(function*() {
  for (let i = 0; i < TRIES; i++) {
    const port = yield* listenable(LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1)))
    if (port !== undefined) return port
  }
  return (yield* listenable(0)) ?? 0
})
