import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { flood, hostileServer } from "../support/Flood.js"
import { http, type Json, loginToken } from "../support/Http.js"
import { PEER_API_KEY, PEER_TOKEN, PEER_USER, peerApi } from "../support/PeerApi.js"
import { RunPlatformLive } from "../support/RunPlatform.js"

/** A loopback server no tenant URL may reach (127.0.0.1 is not in OUTBOUND_ALLOWED_HOSTS). */
const canary = Effect.acquireRelease(
  Effect.async<{ port: number; hits: () => number; close: () => void }>((resume) => {
    let hits = 0
    const server = createServer((req, res) => {
      hits += 1
      req.resume()
      res.end("leaked")
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ port: (server.address() as AddressInfo).port, hits: () => hits, close: () => server.close() })))
  }),
  (c) => Effect.sync(() => c.close())
)

const api = "/api/v1/integrations"

const env = { OUTBOUND_ALLOWED_HOSTS: "127.0.0.2", FUNCTION_TIMEOUT_SECONDS: "1", FUNCTION_MAX_RESPONSE_BYTES: "65536" }

layer(RunPlatformLive(env), { excludeTestServices: true, timeout: "60 seconds" })("integrations", (it) => {
  it.scoped("import an OpenAPI document, install it, store credentials, enable a function and execute it; executions are recorded", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const peer = yield* peerApi("http://169.254.169.254/latest/meta-data/")
      const builder = yield* createMember(admin, "builder")
      const builderToken = yield* loginToken(builder.email, builder.password)
      assert.strictEqual(
        (yield* http("POST", `${api}/catalog/import-spec`, { token: builderToken, body: { name: "peer", spec_url: `${peer.baseUrl}/openapi.yaml` } })).status,
        403
      )
      // A spec_url that answers 64 MiB is read no further than 5 MiB.
      const flooding = yield* hostileServer((req, res, count) => {
        req.resume()
        res.writeHead(200, { "content-type": "application/yaml" })
        void flood(res, 64 * 1024 * 1024, () => "# padding\n".repeat(6_554), count)
      }, "127.0.0.2")
      const flooded = yield* http("POST", `${api}/catalog/import-spec`, { token: admin, body: { name: "flood", spec_url: `${flooding.baseUrl}/openapi.yaml` } })
      assert.strictEqual(flooded.status, 400, flooded.text)
      assert.match(flooded.body.message, /over 5 MiB/)
      yield* Effect.sleep("200 millis")
      assert.isBelow(flooding.sent(), 24 * 1024 * 1024, "the peer could not push much past the cap")
      const bad = yield* http("POST", `${api}/catalog/import-spec`, { token: admin, body: { name: "broken", spec: "openapi: 3.0.0\ninfo: {}\npaths: 7" } })
      assert.strictEqual(bad.status, 400, bad.text)
      assert.strictEqual(bad.body.code, "INVALID_SPEC")

      const imported = yield* http("POST", `${api}/catalog/import-spec`, { token: admin, body: { name: "peer", spec_url: `${peer.baseUrl}/openapi.yaml` } })
      assert.strictEqual(imported.status, 201, imported.text)
      assert.deepInclude(imported.body, { name: "peer", display_name: "Peer Orders", scope: "custom", base_url: peer.baseUrl })
      assert.deepStrictEqual(imported.body.auth, { type: "api_key", in: "header", name: "X-API-Key" })
      const fns = Object.fromEntries((imported.body.functions as Array<{ name: string }>).map((f) => [f.name, f])) as Record<string, Json>
      assert.deepStrictEqual(Object.keys(fns).sort(), ["big", "createOrder", "getOrder", "hop", "slow"].map((n) => n.toLowerCase()).sort())
      assert.deepStrictEqual(fns.createorder.input_schema.required, ["item", "quantity"], "the $ref'd body schema is inlined")
      assert.isTrue(fns.createorder.side_effects)
      assert.isFalse(fns.getorder.side_effects)
      assert.strictEqual((yield* http("GET", `${api}/catalog`, { token: builderToken })).body.items.length, 1)

      const installed = yield* http("POST", `${api}/integrations`, { token: builderToken, body: { catalog_id: imported.body.id } })
      assert.strictEqual(installed.status, 201, installed.text)
      assert.deepInclude(installed.body, { status: "active", enabled_functions: [], has_agent_tool_credentials: false })
      const twice = yield* http("POST", `${api}/integrations`, { token: builderToken, body: { catalog_id: imported.body.id } })
      assert.strictEqual(twice.status, 409)
      assert.strictEqual(twice.body.code, "INTEGRATION_ALREADY_INSTALLED")
      const id = installed.body.id as string
      const stored = yield* http("PUT", `${api}/integrations/${id}/credentials`, {
        token: builderToken,
        body: { capability: "agent_tool", credentials: { api_key: PEER_API_KEY } }
      })
      assert.strictEqual(stored.status, 204)
      const read = yield* http("GET", `${api}/integrations/${id}`, { token: builderToken })
      assert.isTrue(read.body.has_agent_tool_credentials)
      assert.notInclude(read.text, PEER_API_KEY)
      assert.notInclude((yield* http("GET", `${api}/integrations`, { token: builderToken })).text, PEER_API_KEY)
      assert.deepInclude((yield* http("GET", `${api}/integrations/capabilities`, { token: builderToken })).body.items[0], { configured: ["agent_tool"] })

      // Functions are off until enabled.
      const off = yield* http("POST", `${api}/execute`, { token: builderToken, body: { function_name: "peer.getorder", input: { id: "A-1" } } })
      assert.strictEqual(off.status, 404)
      for (const name of ["getorder", "createorder", "slow", "big", "hop"]) {
        assert.strictEqual((yield* http("POST", `${api}/integrations/${id}/functions/${name}/enable`, { token: builderToken })).status, 204)
      }
      assert.strictEqual((yield* http("POST", `${api}/integrations/${id}/functions/nope/enable`, { token: builderToken })).status, 404)
      const callable = yield* http("GET", `${api}/execute/functions`, { token: builderToken })
      assert.strictEqual(callable.body.items.length, 5)
      assert.isObject(callable.body.items[0].input_schema)

      const invalid = yield* http("POST", `${api}/execute`, {
        token: builderToken,
        body: { function_id: fns.createorder.id, input: { item: "pen", quantity: 0 } }
      })
      assert.strictEqual(invalid.status, 400, invalid.text)
      assert.strictEqual(invalid.body.code, "INVALID_INPUT")
      assert.deepStrictEqual(invalid.body.details[0].path, ["input", "quantity"])

      const got = yield* http("POST", `${api}/execute`, { token: builderToken, body: { function_name: "getorder", input: { id: "A 1", verbose: true } } })
      assert.strictEqual(got.status, 200, got.text)
      assert.strictEqual(got.body.status, "success")
      assert.deepStrictEqual(got.body.output, { id: "A 1", verbose: "true", status: "shipped" })
      assert.isNumber(got.body.duration_ms)
      assert.strictEqual(peer.calls.at(-1)?.url, "/orders/A%201?verbose=true")
      const created = yield* http("POST", `${api}/execute`, {
        token: builderToken,
        body: { function_id: fns.createorder.id, input: { item: "pen", quantity: 2 } }
      })
      assert.deepStrictEqual(created.body.output, { id: "ord-9", item: "pen", quantity: 2 })
      assert.deepStrictEqual(JSON.parse(peer.calls.at(-1)!.body), { item: "pen", quantity: 2 })

      // Limits and the outbound guard: each failure is a recorded execution with its error.
      const slow = yield* http("POST", `${api}/execute`, { token: builderToken, body: { function_name: "slow" } })
      assert.deepInclude(slow.body, { status: "error", error: "No answer within 1 s" })
      const big = yield* http("POST", `${api}/execute`, { token: builderToken, body: { function_name: "big" } })
      assert.match(big.body.error, /over 65536 bytes/)
      const hop = yield* http("POST", `${api}/execute`, { token: builderToken, body: { function_name: "hop" } })
      assert.strictEqual(hop.body.status, "error")
      assert.include(hop.body.error, "OUTBOUND_ALLOWED_HOSTS", "the redirect to the metadata address is refused")

      const page = yield* http("GET", `${api}/executions?function_id=${fns.getorder.id}`, { token: builderToken })
      assert.strictEqual(page.body.total, 1)
      const all = yield* http("GET", `${api}/executions?integration_id=${id}&page_size=2`, { token: builderToken })
      assert.strictEqual(all.body.total, 5)
      assert.strictEqual(all.body.items.length, 2)
      assert.isTrue(all.body.has_more)
      const future = yield* http("GET", `${api}/executions?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: builderToken })
      assert.strictEqual(future.body.total, 0)
      const one = yield* http("GET", `${api}/executions/${got.body.execution_id}`, { token: builderToken })
      assert.deepInclude(one.body, { function_name: "getorder", status: "success", http_status: 200, input: { id: "A 1", verbose: true } })

      // Another workspace sees none of it.
      const other = yield* createTenant(admin, `other-${Date.now()}`)
      const outsider = yield* createMember(admin, "builder", { tenantId: other.id })
      const outsiderToken = yield* loginToken(outsider.email, outsider.password, other.slug)
      assert.strictEqual((yield* http("GET", `${api}/executions/${got.body.execution_id}`, { token: outsiderToken })).status, 404)
      assert.strictEqual((yield* http("GET", `${api}/integrations/${id}`, { token: outsiderToken })).status, 404)
      assert.strictEqual((yield* http("GET", `${api}/catalog`, { token: outsiderToken })).body.items.length, 0)

      assert.strictEqual((yield* http("DELETE", `${api}/integrations/${id}`, { token: builderToken })).status, 204)
      assert.strictEqual((yield* http("POST", `${api}/execute`, { token: builderToken, body: { function_name: "getorder", input: { id: "x" } } })).status, 404)
    }))

  it.scoped("authored entries: bearer and basic credentials are injected; script functions run sandboxed with their logs", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const peer = yield* peerApi("http://127.0.0.2:9/")
      const author = (body: Record<string, unknown>) => http("POST", `${api}/catalog`, { token: admin, body })
      const bearer = yield* author({
        name: "orders-bearer",
        base_url: peer.baseUrl,
        auth: { type: "bearer" },
        functions: [{
          name: "place",
          kind: "http",
          method: "POST",
          path: "/orders",
          input_schema: { type: "object", properties: { item: { type: "string" } } }
        }]
      })
      assert.strictEqual(bearer.status, 201, bearer.text)
      const basic = yield* author({
        name: "me-basic",
        base_url: peer.baseUrl,
        auth: { type: "basic" },
        functions: [{ name: "whoami", kind: "http", method: "GET", path: "/me" }]
      })
      const script = yield* author({
        name: "maths",
        functions: [
          {
            name: "sum",
            kind: "script",
            source: "console.log('adding', input.values.length, 'values'); return { total: input.values.reduce((a, b) => a + b, 0) }"
          },
          { name: "spin", kind: "script", source: "while (true) {}" },
          { name: "escape", kind: "script", source: "return typeof process + '/' + typeof require + '/' + typeof fetch" }
        ]
      })
      assert.strictEqual(script.status, 201, script.text)
      assert.strictEqual((yield* author({ name: "maths", functions: [] })).status, 409)
      const setUp = (entryId: string, credentials: Record<string, unknown> | undefined, names: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const install = (yield* http("POST", `${api}/integrations`, { token: admin, body: { catalog_id: entryId } })).body.id as string
          if (credentials !== undefined) {
            yield* http("PUT", `${api}/integrations/${install}/credentials`, { token: admin, body: { capability: "agent_tool", credentials } })
          }
          for (const n of names) {
            yield* http("POST", `${api}/integrations/${install}/functions/${n}/enable`, { token: admin })
          }
        })
      yield* setUp(bearer.body.id, { token: PEER_TOKEN }, ["place"])
      yield* setUp(basic.body.id, PEER_USER, ["whoami"])
      yield* setUp(script.body.id, undefined, ["sum", "spin", "escape"])
      const exec = (function_name: string, input: Record<string, unknown> = {}) =>
        http("POST", `${api}/execute`, { token: admin, body: { function_name, input } })
      assert.deepStrictEqual((yield* exec("orders-bearer.place", { item: "ink" })).body.output, { id: "ord-9", item: "ink" })
      assert.deepStrictEqual((yield* exec("whoami")).body.output, { user: "ada" })

      const sum = yield* exec("sum", { values: [1, 2, 3.5] })
      assert.deepStrictEqual(sum.body.output, { total: 6.5 })
      const record = yield* http("GET", `${api}/executions/${sum.body.execution_id}`, { token: admin })
      assert.strictEqual(record.body.logs, "adding 3 values")
      assert.strictEqual((yield* exec("escape")).body.output, "undefined/undefined/undefined")
      const started = Date.now()
      const spin = yield* exec("spin")
      assert.strictEqual(spin.body.status, "error")
      assert.match(spin.body.error, /CPU limit/)
      assert.isBelow(Date.now() - started, 10_000)
      assert.strictEqual((yield* http("GET", "/health")).status, 200, "the platform keeps serving")
    }))

  it.scoped("tenant URLs that reach loopback, private or metadata addresses are refused (422 OUTBOUND_ADDRESS_REFUSED)", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const c = yield* canary
      const urls = [
        `http://127.0.0.1:${c.port}`,
        `http://localhost:${c.port}`,
        "http://[::1]:80",
        "http://[::ffff:127.0.0.1]:80",
        "http://169.254.169.254",
        "http://10.1.2.3"
      ]
      for (const [i, base_url] of urls.entries()) {
        const entry = yield* http("POST", `${api}/catalog`, {
          token: admin,
          body: { name: `guarded-${i}`, base_url, functions: [{ name: "f", kind: "http", method: "GET", path: "/" }] }
        })
        assert.strictEqual(entry.status, 422, `${base_url}: ${entry.text}`)
        assert.strictEqual(entry.body.code, "OUTBOUND_ADDRESS_REFUSED")
        const spec = yield* http("POST", `${api}/catalog/import-spec`, { token: admin, body: { name: `spec-${i}`, spec_url: `${base_url}/openapi.yaml` } })
        assert.strictEqual(spec.status, 422, `${base_url}: ${spec.text}`)
        const oauth = yield* http("POST", `${api}/catalog`, {
          token: admin,
          body: { name: `oauth-${i}`, auth: { type: "oauth2", authorize_url: "https://idp.example.com/auth", token_url: `${base_url}/token` }, functions: [] }
        })
        assert.strictEqual(oauth.status, 422, `${base_url}: ${oauth.text}`)
        assert.deepStrictEqual(oauth.body.details[0].path, ["auth.token_url"])
      }
      assert.strictEqual(c.hits(), 0)
    }))
})
