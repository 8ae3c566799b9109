import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { embeddedIPv4, parseAllowlist, refusalReason } from "../../platform/outbound/AddressPolicy.js"
import { checkedAddress, OutboundGuard, refusalIn } from "../../platform/outbound/OutboundGuard.js"

/** A loopback server that counts its hits; `respond` decides the answer. */
const listen = (host: string, respond: (url: string) => { status: number; headers?: Record<string, string> }) =>
  Effect.acquireRelease(
    Effect.async<{ server: Server; hits: () => number; port: number }>((resume) => {
      let hits = 0
      const server = createServer((req, res) => {
        hits += 1
        req.resume()
        const answer = respond(req.url ?? "/")
        res.writeHead(answer.status, answer.headers ?? {})
        res.end("{}")
      })
      server.listen(0, host, () => resume(Effect.succeed({ server, hits: () => hits, port: (server.address() as AddressInfo).port })))
    }),
    ({ server }) => Effect.sync(() => server.close())
  )

describe("outbound address policy", () => {
  it("refuses loopback, private, link-local, metadata, multicast and their IPv6 and mapped forms", () => {
    for (
      const address of [
        "127.0.0.1",
        "127.1.2.3",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "0.0.0.0",
        "224.0.0.1",
        "100.64.0.1",
        "::1",
        "::",
        "fe80::1",
        "fd12::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:7f00:1",
        "::ffff:a9fe:a9fe",
        "64:ff9b::a00:1",
        "2002:7f00:1::1",
        "fd00:ec2::254"
      ]
    ) {
      assert.isDefined(refusalReason(address), address)
    }
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"]) assert.isUndefined(refusalReason(address), address)
    assert.strictEqual(embeddedIPv4("::ffff:a9fe:a9fe"), "169.254.169.254")
  })

  it.effect("every textual form of a loopback or private host in a URL is refused", () =>
    Effect.gen(function*() {
      const none = parseAllowlist([])
      const forms = [
        "http://127.0.0.1:9/v1",
        "http://[::1]/",
        "http://2130706433/",
        "http://127.1/",
        "http://0x7f.0.0.1/",
        "http://017700000001/",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://localhost:9/v1"
      ]
      for (const url of forms) {
        const result = yield* Effect.either(checkedAddress(none, new URL(url).hostname))
        assert.isTrue(Either.isLeft(result) && refusalIn(result.left) !== undefined, url)
      }
    }))

  it.effect("OUTBOUND_ALLOWED_HOSTS: names, addresses and CIDR ranges let an operator through", () =>
    Effect.gen(function*() {
      const allow = parseAllowlist(["localhost", "10.1.0.0/16", "127.0.0.2"])
      assert.strictEqual(yield* checkedAddress(allow, "10.1.2.3"), "10.1.2.3")
      assert.strictEqual(yield* checkedAddress(allow, "127.0.0.2"), "127.0.0.2")
      assert.isTrue(Either.isLeft(yield* Effect.either(checkedAddress(allow, "10.2.0.1"))))
      assert.include(["127.0.0.1", "::1"], yield* checkedAddress(allow, "localhost"))
    }))
})

describe("the guarded client checks every connection at connect time", () => {
  it.scoped("a redirect from an allowed host to a private one is refused; the private server is never reached", () =>
    Effect.gen(function*() {
      const canary = yield* listen("127.0.0.1", () => ({ status: 200 }))
      const redirector = yield* listen("127.0.0.2", () => ({ status: 307, headers: { location: `http://127.0.0.1:${canary.port}/steal` } }))
      const guard = yield* OutboundGuard.make(parseAllowlist(["127.0.0.2"]))
      const allowed = yield* Effect.either(guard.client.execute(HttpClientRequest.get(`http://127.0.0.2:${redirector.port}/`)))
      assert.isTrue(Either.isLeft(allowed))
      assert.strictEqual(refusalIn(allowed._tag === "Left" ? allowed.left : undefined)?.code, "OUTBOUND_ADDRESS_REFUSED")
      assert.strictEqual(redirector.hits(), 1)
      assert.strictEqual(canary.hits(), 0)
    }))

  it.scoped("a name that resolves to loopback is refused when connecting, even though the URL was never checked", () =>
    Effect.gen(function*() {
      const canary = yield* listen("127.0.0.1", () => ({ status: 200 }))
      const guard = yield* OutboundGuard.make(parseAllowlist([]))
      for (const url of [`http://localhost:${canary.port}/`, `http://127.0.0.1:${canary.port}/`, `http://[::ffff:127.0.0.1]:${canary.port}/`]) {
        const result = yield* Effect.either(guard.client.execute(HttpClientRequest.get(url)))
        assert.isTrue(Either.isLeft(result), url)
      }
      assert.strictEqual(canary.hits(), 0)
      const ok = yield* OutboundGuard.make(parseAllowlist(["127.0.0.1"]))
      const through = yield* ok.client.execute(HttpClientRequest.get(`http://127.0.0.1:${canary.port}/`))
      assert.strictEqual(through.status, 200)
      assert.strictEqual(canary.hits(), 1)
    }))
})
