import { Effect } from "effect"
import * as net from "node:net"

/**
 * What the proxy does to the traffic between the platform and a dependency:
 * - `pass`: forwards both ways;
 * - `latency`: forwards each chunk `latencyMs` later;
 * - `stall`: holds every byte both ways (kept, and sent on when the mode changes back);
 * - `blackhole`: a half-open peer: connections stay open, every byte both ways is dropped for good;
 * - `reset`: every open connection is reset (RST), and so is every new one.
 */
export type Fault = "pass" | "latency" | "stall" | "blackhole" | "reset"

interface Pair {
  readonly client: net.Socket
  readonly upstream: net.Socket
  readonly held: Array<() => void>
  /** The request line the client sent last on this connection (HTTP), e.g. `GET /x HTTP/1.1`. */
  lastRequest: string
}

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.[01]/

/** A TCP proxy to `target` on a free loopback port whose fault can be changed while it runs. */
export const faultProxy = (target: { readonly host: string; readonly port: number }) =>
  Effect.acquireRelease(
    Effect.async<{
      readonly port: number
      readonly set: (fault: Fault, latencyMs?: number) => void
      readonly connections: () => number
      /** How many new connections were reset on arrival (in `reset`) so far. */
      readonly refused: () => number
      /** Resets (RST) the open connections whose last HTTP request line matches, leaving the others; how many. */
      readonly resetWhere: (request: RegExp) => number
      readonly close: () => void
    }>((resume) => {
      let fault: Fault = "pass"
      let latencyMs = 0
      let refused = 0
      const pairs = new Set<Pair>()
      const drop = (pair: Pair) => {
        pair.client.destroy()
        pair.upstream.destroy()
        pairs.delete(pair)
      }
      const forward = (pair: Pair, to: net.Socket) => (chunk: Buffer) => {
        const send = () => void (to.destroyed ? undefined : to.write(chunk))
        switch (fault) {
          case "pass":
            return send()
          case "latency":
            return void setTimeout(send, latencyMs)
          case "stall":
            return void pair.held.push(send)
          case "blackhole":
            return
          case "reset":
            return
        }
      }
      const server = net.createServer((client) => {
        if (fault === "reset") {
          refused++
          return void client.resetAndDestroy()
        }
        const upstream = net.connect(target.port, target.host)
        const pair: Pair = { client, upstream, held: [], lastRequest: "" }
        pairs.add(pair)
        client.on("data", (chunk: Buffer) => {
          const line = REQUEST_LINE.exec(chunk.subarray(0, 2048).toString("latin1"))
          if (line !== null) pair.lastRequest = line[0]
        })
        client.on("data", forward(pair, upstream))
        upstream.on("data", forward(pair, client))
        client.on("error", () => drop(pair)).on("close", () => drop(pair))
        upstream.on("error", () => drop(pair)).on("close", () => drop(pair))
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          port: (server.address() as net.AddressInfo).port,
          set: (next: Fault, ms = 0) => {
            fault = next
            latencyMs = ms
            if (next === "reset") {
              for (const pair of pairs) {
                pair.client.resetAndDestroy()
                pair.upstream.destroy()
              }
              pairs.clear()
            }
            if (next === "pass" || next === "latency") {
              for (const pair of pairs) pair.held.splice(0).forEach((send) => send())
            }
          },
          connections: () => pairs.size,
          refused: () => refused,
          resetWhere: (request) => {
            const hit = [...pairs].filter((pair) => request.test(pair.lastRequest))
            for (const pair of hit) {
              pair.client.resetAndDestroy()
              pair.upstream.destroy()
              pairs.delete(pair)
            }
            return hit.length
          },
          close: () => {
            server.close()
            for (const pair of pairs) drop(pair)
          }
        })))
    }),
    (proxy) => Effect.sync(() => proxy.close())
  )
