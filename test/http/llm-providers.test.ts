import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { createWorkflow, publish, respondNode, saveDag } from "../support/Workflows.js"

const SECRET = "sk-tenant-secret-123456"

// The scripted model listens on loopback, which tenant providers may reach only when the operator allows it.
layer(RunPlatformLive({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" }), { excludeTestServices: true, timeout: "60 seconds" })(
  "LLM providers and model selection",
  (it) => {
    it.effect("tenant providers: the key is stored sealed and never returned; admins manage them", () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        const created = yield* http("POST", "/api/v1/workflow/llm-providers", {
          token,
          body: {
            name: "own",
            base_url: model.baseUrl,
            api_key: SECRET,
            models: [{ id: "fast", cost_tier: 3, speed_tier: 3 }, { id: "cheap", cost_tier: 1, speed_tier: 1 }]
          }
        })
        assert.strictEqual(created.status, 201)
        assert.isTrue(created.body.has_api_key)
        assert.notInclude(created.text, SECRET)
        const list = yield* http("GET", "/api/v1/workflow/llm-providers", { token })
        assert.notInclude(list.text, SECRET)
        assert.strictEqual(list.body.total, 1)
        const dup = yield* http("POST", "/api/v1/workflow/llm-providers", { token, body: { name: "own", base_url: model.baseUrl, models: [{ id: "x" }] } })
        assert.strictEqual(dup.status, 409)
        const builder = yield* createMember(token, "builder")
        const bToken = yield* loginToken(builder.email, builder.password)
        assert.strictEqual(
          (yield* http("POST", "/api/v1/workflow/llm-providers", { token: bToken, body: { name: "b", base_url: model.baseUrl, models: [{ id: "x" }] } }))
            .status,
          403
        )
        assert.strictEqual((yield* http("GET", `/api/v1/workflow/llm-providers/${created.body.id}`, { token: bToken })).status, 200)
        const platform = yield* TestPlatform
        const stored = yield* Effect.promise(async () => {
          const client = new pg.Client({ connectionString: platform.databaseUrl })
          await client.connect()
          const r = await client.query("SELECT api_key_enc FROM llm_providers WHERE id = $1", [created.body.id])
          await client.end()
          return r.rows[0].api_key_enc as string
        })
        assert.notInclude(stored, SECRET)
        assert.match(stored, /^v1:/)
      }))

    it.effect("with use_own_providers the AI Employee calls the tenant's provider, picked by optimization_priority", () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        model.setScript(() => ({ text: "own answer" }))
        const w = yield* createWorkflow(token)
        yield* saveDag(token, w.id, { nodes: [respondNode("a")] })
        yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}/llm-config`, { token, body: { use_own_providers: true, optimization_priority: "CHEAPEST" } })
        assert.strictEqual((yield* publish(token, w.id)).status, 200)
        const run = yield* startRun(token, w.id, {})
        const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
        assert.strictEqual(done.status, "completed", JSON.stringify(done))
        assert.deepStrictEqual(Object.keys(done.token_usage), ["own/cheap"])
        assert.strictEqual(model.requests.at(-1)?.model, "cheap")
        assert.strictEqual(model.authorizations.at(-1), `Bearer ${SECRET}`)

        yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}/llm-config`, { token, body: { optimization_priority: "FASTEST" } })
        yield* publish(token, w.id)
        const fast = yield* startRun(token, w.id, {})
        yield* waitForStatus(token, fast.body.id, ["completed"])
        assert.strictEqual(model.requests.at(-1)?.model, "fast")
      }))

    it.effect("NO_LLM_PROVIDER reads the registry: own providers on with none enabled blocks publish", () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const list = yield* http("GET", "/api/v1/workflow/llm-providers", { token })
        for (const p of list.body.items) yield* http("PATCH", `/api/v1/workflow/llm-providers/${p.id}`, { token, body: { enabled: false } })
        const w = yield* createWorkflow(token)
        yield* saveDag(token, w.id, { nodes: [respondNode("a")] })
        yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}/llm-config`, { token, body: { use_own_providers: true } })
        const refused = yield* publish(token, w.id)
        assert.strictEqual(refused.status, 422)
        assert.include(refused.body.details.map((d: { code: string }) => d.code), "NO_LLM_PROVIDER")
        yield* http("PATCH", `/api/v1/workflow/workflows/${w.id}/llm-config`, { token, body: { use_own_providers: false } })
        assert.strictEqual((yield* publish(token, w.id)).status, 200)
      }))
  }
)
