import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { createServer, type Server } from "node:http"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Agent, request } from "undici"
import { withinDeadline } from "../../platform/outbound/Deadline.js"
import { callHttp } from "../../services/integrations/HttpFunction.js"
import { callZendesk } from "../../services/ticketing/zendesk/ZendeskApi.js"

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

/** A peer that accepts every request and never answers, counting the connections still open. */
const stalledPeer = Effect.acquireRelease(
  Effect.async<{ server: Server; url: string; open: () => number }>((resume) => {
    const server = createServer(() => {})
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const open = () => {
        let n = 0
        server.getConnections((_, count) => n = count)
        return n
      }
      resume(Effect.succeed({ server, url: `http://127.0.0.1:${port}`, open }))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

/** Collects garbage every 50 ms while `effect` runs: the collections that lost Node 20's composite timeout signals. */
const underCollections = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.sync(() => setInterval(gc, 50)), () => effect, (timer) => Effect.sync(() => clearInterval(timer)))

describe("deadlines on calls to peers (platform/outbound/Deadline.ts)", () => {
  it.scopedLive("a stalled peer fails the call at its deadline, and the connection is dropped", () =>
    Effect.gen(function*() {
      const peer = yield* stalledPeer
      const agent = new Agent()
      const exit = yield* underCollections(Effect.exit(withinDeadline(600, (signal) => request(peer.url, { signal, dispatcher: agent }))))
      assert.isTrue(Exit.isFailure(exit) && Cause.isTimeoutException(Cause.squash(exit.cause)))
      yield* Effect.promise(() => agent.close())
      assert.strictEqual(peer.open(), 0)
    }), 10_000)

  it.scopedLive("an integration's HTTP function on a stalled endpoint ends with 'No answer within' instead of waiting", () =>
    Effect.gen(function*() {
      const peer = yield* stalledPeer
      const outcome = yield* underCollections(callHttp({
        baseUrl: peer.url,
        method: "GET",
        path: "/slow",
        input: {},
        auth: { type: "none" },
        credentials: {},
        accessToken: undefined,
        timeoutMs: 600,
        maxResponseBytes: 1024,
        dispatcher: new Agent()
      }))
      assert.deepStrictEqual(outcome, { ok: false, httpStatus: null, output: null, error: "No answer within 0.6 s" })
    }), 10_000)

  it.scopedLive("a stalled Zendesk is BACKEND_UNAVAILABLE (503) at TICKETING_TIMEOUT_SECONDS", () =>
    Effect.gen(function*() {
      const peer = yield* stalledPeer
      const error = yield* underCollections(
        Effect.flip(callZendesk({ baseUrl: peer.url, email: "a@b.test", apiToken: "t" }, new Agent(), 600, { method: "GET", path: "/api/v2/groups.json" }))
      )
      assert.strictEqual(error._tag, "ServiceUnavailable")
      assert.include(error.message, "no answer within 0.6 s")
    }), 10_000)
})
