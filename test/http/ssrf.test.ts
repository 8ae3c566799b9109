import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import pg from "pg"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { createWorkflow, publish, respondNode, saveDag } from "../support/Workflows.js"

/** A server on a loopback address that must never be reached by a tenant's provider. */
const canary = Effect.acquireRelease(
  Effect.async<{ port: number; hits: () => number; close: () => void }>((resume) => {
    let hits = 0
    const server = createServer((req, res) => {
      hits += 1
      req.resume()
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "leaked" } }] })}\n\ndata: [DONE]\n\n`)
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ port: (server.address() as AddressInfo).port, hits: () => hits, close: () => server.close() })))
  }),
  (c) => Effect.sync(() => c.close())
)

/** An allowed host (127.0.0.2 is in OUTBOUND_ALLOWED_HOSTS) that redirects every call to `target`. */
const redirector = (target: string) =>
  Effect.acquireRelease(
    Effect.async<{ port: number; close: () => void }>((resume) => {
      const server = createServer((req, res) => {
        req.resume()
        res.writeHead(307, { location: `${target}${req.url ?? ""}` })
        res.end()
      })
      server.listen(0, "127.0.0.2", () => resume(Effect.succeed({ port: (server.address() as AddressInfo).port, close: () => server.close() })))
    }),
    (r) => Effect.sync(() => r.close())
  )

const provider = (token: string, name: string, base_url: string) =>
  http("POST", "/api/v1/workflow/llm-providers", { token, body: { name, base_url, api_key: "sk-tenant", models: [{ id: "m" }] } })

/** A published AI Employee that calls the tenant's own providers. */
const ownProviderWorkflow = (token: string) =>
  Effect.gen(function*() {
    const w = yield* createWorkflow(token)
    yield* saveDag(token, w.id, { nodes: [respondNode("a")] })
    yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}/llm-config`, { token, body: { use_own_providers: true } })
    assert.strictEqual((yield* publish(token, w.id)).status, 200)
    return w.id as string
  })

const sql = (url: string, text: string, values: ReadonlyArray<unknown>) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query(text, [...values]).finally(() => client.end())
  })

layer(RunPlatformLive({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.2" }), { excludeTestServices: true, timeout: "60 seconds" })(
  "SSRF through tenant model providers",
  (it) => {
    it.scoped("registering a provider at a loopback, private, link-local or metadata address is 422 OUTBOUND_ADDRESS_REFUSED", () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const c = yield* canary
        const refused = [
          `http://127.0.0.1:${c.port}/v1`,
          "http://[::1]/",
          "http://2130706433/",
          "http://127.1/",
          "http://10.0.0.1/",
          "http://169.254.169.254/",
          "http://[::ffff:127.0.0.1]/v1",
          "http://[::ffff:a9fe:a9fe]/",
          `http://localhost:${c.port}/v1`
        ]
        for (const [i, url] of refused.entries()) {
          const r = yield* provider(token, `p${i}`, url)
          assert.strictEqual(r.status, 422, `${url}: ${r.text}`)
          assert.strictEqual(r.body.code, "OUTBOUND_ADDRESS_REFUSED", url)
        }
        const list = yield* http("GET", "/api/v1/workflow/llm-providers", { token })
        assert.strictEqual(list.body.total, 0, "nothing was stored")
        // Moving an existing provider to a private address is refused the same way.
        const ok = yield* provider(token, "allowed", "http://127.0.0.2:9/v1")
        assert.strictEqual(ok.status, 201, ok.text)
        const moved = yield* http("PATCH", `/api/v1/workflow/llm-providers/${ok.body.id}`, { token, body: { base_url: "http://169.254.169.254/" } })
        assert.strictEqual(moved.status, 422)
        assert.strictEqual(c.hits(), 0)
      }))

    it.scoped("a redirect from an allowed host to a private one fails the step with OUTBOUND_ADDRESS_REFUSED; the target is never reached", () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const c = yield* canary
        const r = yield* redirector(`http://127.0.0.1:${c.port}`)
        const list = yield* http("GET", "/api/v1/workflow/llm-providers", { token })
        for (const p of list.body.items as Array<{ id: string }>) yield* http("DELETE", `/api/v1/workflow/llm-providers/${p.id}`, { token })
        assert.strictEqual((yield* provider(token, "hop", `http://127.0.0.2:${r.port}/v1`)).status, 201)
        const id = yield* ownProviderWorkflow(token)
        const run = yield* startRun(token, id, {})
        const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
        assert.strictEqual(done.status, "failed")
        assert.include(done.error, "OUTBOUND_ADDRESS_REFUSED")
        assert.strictEqual(c.hits(), 0)
      }))

    it.scoped("an address that slipped past registration (a name resolving to 127.0.0.1) is refused when connecting", () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const c = yield* canary
        const platform = yield* TestPlatform
        const list = yield* http("GET", "/api/v1/workflow/llm-providers", { token })
        for (const p of list.body.items as Array<{ id: string }>) yield* http("DELETE", `/api/v1/workflow/llm-providers/${p.id}`, { token })
        // Written behind the API's back, as a DNS answer that changed after registration would be.
        const me = yield* http("GET", "/api/v1/auth/users/me", { token })
        yield* sql(
          platform.databaseUrl,
          `INSERT INTO llm_providers (id, tenant_id, name, base_url, models, enabled)
        VALUES (gen_random_uuid(), $1, 'sneaky', $2, '[{"id":"m","cost_tier":2,"speed_tier":2}]'::jsonb, true)`,
          [me.body.user.tenant_id, `http://localhost:${c.port}/v1`]
        )
        const id = yield* ownProviderWorkflow(token)
        const run = yield* startRun(token, id, {})
        const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
        assert.strictEqual(done.status, "failed")
        assert.include(done.error, "OUTBOUND_ADDRESS_REFUSED")
        assert.strictEqual(c.hits(), 0)
      }))
  }
)
