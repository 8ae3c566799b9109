import { Effect } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

/**
 * Where free ports are looked for: below the kernel's ephemeral range (Linux: 32768-60999), from
 * which outgoing connections take their local ports. A port of that range, free when checked, can
 * be taken by a connection before the process it is for binds it (seconds later for a PostgreSQL
 * or a platform starting), which then fails with "address already in use".
 */
const LOWEST = 20_000
const HIGHEST = 32_767
const TRIES = 50
/** How long a port handed out stays promised to whoever asked, so no other asker gets it before it is bound. */
const PROMISED_MS = 60_000

const promisedHere = new Map<number, number>()
const promises = path.join(os.tmpdir(), `builder-platform-ports-${process.getuid?.() ?? "user"}`)

/**
 * Promises `port` to this caller, unless this or another process on the machine was handed it in
 * the last minute (a marker file per port: two test workers, or a platform and its embedded
 * PostgreSQL, each checking a port free before either binds it). Markers that cannot be written
 * leave the in-process promise alone to hold.
 */
const promised = (port: number) =>
  Effect.gen(function*() {
    const now = Date.now()
    if ((promisedHere.get(port) ?? 0) > now - PROMISED_MS) return false
    const marker = path.join(promises, String(port))
    const taken = yield* Effect.try(() => fs.statSync(marker, { throwIfNoEntry: false })).pipe(Effect.orElseSucceed(() => undefined))
    if (taken !== undefined && taken.mtimeMs > now - PROMISED_MS) return false
    for (const [old, at] of promisedHere) if (at <= now - PROMISED_MS) promisedHere.delete(old)
    promisedHere.set(port, now)
    yield* Effect.try(() => {
      fs.mkdirSync(promises, { recursive: true })
      fs.writeFileSync(marker, "")
    }).pipe(Effect.ignore)
    return true
  })

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

/** A TCP port free on loopback right now and handed to no one else lately, outside the ephemeral range when one is found there. */
export const freePort = Effect.gen(function*() {
  for (let i = 0; i < TRIES; i++) {
    const candidate = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1))
    if (!(yield* promised(candidate))) continue
    const port = yield* listenable(candidate)
    if (port !== undefined) return port
  }
  return (yield* listenable(0)) ?? 0
})
