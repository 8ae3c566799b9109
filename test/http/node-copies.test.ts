import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { createHmac } from "node:crypto"
import { freePort } from "../../platform/FreePort.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken, request } from "../support/Http.js"
import { servePlatform, TestPlatform, TestPlatformLive } from "../support/TestPlatform.js"
import { sharedBusEnv } from "../support/TestServices.js"
import { createWorkflow, LLM_ENV, publish, saveDag, simpleDag } from "../support/Workflows.js"

/**
 * What a node keeps in memory of the rows every request reads (a token's membership, an AI
 * Employee's active version), with a second node on the same database changing them. The auth
 * copies live 60 s here: only the bus message can explain a change seen sooner.
 */
class SecondNode extends Context.Tag("SecondNode")<SecondNode, { readonly baseUrl: string }>() {}

const prefix = `copies-${process.pid}-${Date.now()}:`

const SecondNodeLive = Layer.scoped(
  SecondNode,
  Effect.gen(function*() {
    const first = yield* TestPlatform
    const port = yield* freePort
    yield* servePlatform({ ...first.env, PORT: String(port), RUNNER_PORT: String(yield* freePort) })
    return { baseUrl: `http://127.0.0.1:${port}` }
  })
)

const Live = Layer.unwrapEffect(
  Effect.map(freePort, (runnerPort) =>
    TestPlatformLive({
      redis: false,
      env: { ...LLM_ENV, ...sharedBusEnv(prefix), AUTH_CACHE_SECONDS: "60", RUNNER_PORT: String(runnerPort) }
    }))
)

const untilStatus = (baseUrl: string, token: string, wanted: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 40; i++) {
      const r = yield* request(baseUrl, "GET", "/api/v1/auth/users/me", { token })
      if (r.status === wanted) return r
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.dieMessage(`GET /me never answered ${wanted}`)
  })

/** An AI Employee with version 2 active, and the second node. */
const publishedOnce = Effect.gen(function*() {
  const second = yield* SecondNode
  const admin = yield* adminToken
  const w = yield* createWorkflow(admin)
  yield* saveDag(admin, w.id, simpleDag("one"))
  assert.strictEqual((yield* publish(admin, w.id)).body.number, 2)
  return { admin, second, w }
})

/** Version 3 published and the AI Employee renamed "Renamed", on the first node. */
const publishedAgainRenamed = (admin: string, id: string) =>
  Effect.gen(function*() {
    yield* saveDag(admin, id, simpleDag("two"))
    assert.strictEqual((yield* publish(admin, id)).body.number, 3)
    assert.strictEqual((yield* http("PATCH", `/api/v1/workflow/workflows/${id}`, { token: admin, body: { name: "Renamed" } })).status, 200)
  })

/** A webhook of the AI Employee, and a signed delivery of it to the node at `baseUrl`. */
const webhookOn = (baseUrl: string, admin: string, id: string) =>
  Effect.gen(function*() {
    const hook = yield* http("POST", `/api/v1/workflow/workflows/${id}/webhooks`, { token: admin })
    assert.strictEqual(hook.status, 201, hook.text)
    const body = JSON.stringify({ message: "hi" })
    const signature = `sha256=${createHmac("sha256", hook.body.secret as string).update(body).digest("hex")}`
    return (deliveryId: string) =>
      Effect.promise(async () => {
        const r = await fetch(`${baseUrl}${new URL(hook.body.url).pathname}`, {
          method: "POST",
          body,
          headers: { "content-type": "application/json", "x-signature-256": signature, "x-webhook-id": deliveryId }
        })
        return { status: r.status, body: (await r.json()) as { run_id: string; code?: string } }
      })
  })

layer(SecondNodeLive.pipe(Layer.provideMerge(Live)), { excludeTestServices: true, timeout: "90 seconds" })("copies a node keeps", (it) => {
  it.effect("a member disabled on one node is refused on the other within the bus's delay, not the cache's 60 s", () =>
    Effect.gen(function*() {
      const second = yield* SecondNode
      const admin = yield* adminToken
      const member = yield* createMember(admin, "builder")
      const token = yield* loginToken(member.email, member.password)
      assert.strictEqual((yield* request(second.baseUrl, "GET", "/api/v1/auth/users/me", { token })).status, 200)
      const disabled = yield* http("PATCH", `/api/v1/auth/users/${member.id}`, { token: admin, body: { status: "disabled" } })
      assert.strictEqual(disabled.status, 200, disabled.text)
      // On the node that made the change, at once.
      const here = yield* http("GET", "/api/v1/auth/users/me", { token })
      assert.strictEqual(here.status, 401)
      assert.strictEqual(here.body.code, "ACCOUNT_INACTIVE")
      const there = yield* untilStatus(second.baseUrl, token, 401)
      assert.strictEqual(there.body.code, "ACCOUNT_INACTIVE")
    }))

  it.effect("a role taken away and an API key revoked hold at once on the node that changed them", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const member = yield* createMember(admin, "builder")
      const token = yield* loginToken(member.email, member.password)
      assert.strictEqual((yield* http("POST", "/api/v1/workflow/workflows", { token, body: { name: "Mine" } })).status, 201)
      assert.strictEqual((yield* http("PATCH", `/api/v1/auth/users/${member.id}`, { token: admin, body: { role: "user" } })).status, 200)
      assert.strictEqual((yield* http("POST", "/api/v1/workflow/workflows", { token, body: { name: "Not mine" } })).status, 403)

      const key = yield* http("POST", "/api/v1/auth/api-keys", { token: admin, body: { name: "copies" } })
      assert.strictEqual(key.status, 201, key.text)
      const apiKey = key.body.key as string
      assert.strictEqual((yield* http("GET", "/api/v1/auth/users/me", { apiKey })).status, 200)
      assert.strictEqual((yield* http("DELETE", `/api/v1/auth/api-keys/${key.body.id}`, { token: admin })).status, 204)
      const revoked = yield* http("GET", "/api/v1/auth/users/me", { apiKey })
      assert.strictEqual(revoked.status, 401)
      assert.strictEqual(revoked.body.code, "API_KEY_REVOKED")
    }))

  it.effect("a run started on a node whose copy of the AI Employee is stale runs the version the other node published", () =>
    Effect.gen(function*() {
      const { admin, second, w } = yield* publishedOnce
      const run = (dry = false) =>
        request(second.baseUrl, "POST", `/api/v1/workflow/workflows/${w.id}/${dry ? "dry-run" : "run"}`, {
          token: admin,
          body: { input_params: { message: "hi" } }
        })
      assert.strictEqual((yield* run()).body.version, 2)
      assert.strictEqual((yield* run(true)).body.version, 2)
      // Published (and renamed, and a newer draft saved) on the first node: the second still has version 2 in memory.
      yield* publishedAgainRenamed(admin, w.id)
      yield* saveDag(admin, w.id, simpleDag("three"))
      const real = yield* run()
      assert.strictEqual(real.status, 202, real.text)
      assert.strictEqual(real.body.version, 3)
      assert.strictEqual(real.body.workflow_name, "Renamed")
      const dry = yield* run(true)
      assert.strictEqual(dry.status, 202, dry.text)
      assert.strictEqual(dry.body.version, 4)
      // Archived on the first node: the second refuses, and writes nothing.
      const runsOf = http("GET", `/api/v1/workflow/workflows/${w.id}/runs?page_size=50`, { token: admin }).pipe(Effect.map((r) => r.body.total as number))
      const before = yield* runsOf
      assert.strictEqual((yield* http("DELETE", `/api/v1/workflow/workflows/${w.id}`, { token: admin })).status, 204)
      const gone = yield* run()
      assert.strictEqual(gone.status, 404, gone.text)
      assert.strictEqual((yield* http("POST", `/api/v1/workflow/workflows/${w.id}/restore`, { token: admin })).status, 200)
      assert.strictEqual(yield* runsOf, before)
    }))

  it.effect("a run a trigger starts in-process, on a node whose copy of the active version is stale, runs the version the other node published", () =>
    Effect.gen(function*() {
      const { admin, second, w } = yield* publishedOnce
      const deliver = yield* webhookOn(second.baseUrl, admin, w.id)
      const runOf = (id: string) => http("GET", `/api/v1/workflow/runs/${id}`, { token: admin }).pipe(Effect.map((r) => r.body))
      const first = yield* deliver("first")
      assert.strictEqual(first.status, 202)
      assert.strictEqual((yield* runOf(first.body.run_id)).version, 2)
      // Published and renamed on the first node: the second remembers version 2 under the old name.
      yield* publishedAgainRenamed(admin, w.id)
      const next = yield* deliver("second")
      assert.strictEqual(next.status, 202)
      const run = yield* runOf(next.body.run_id)
      assert.strictEqual(run.version, 3)
      assert.strictEqual(run.workflow_name, "Renamed")
    }))

  it.effect("a node whose copy says the AI Employee is not published reads it again before refusing an in-process start", () =>
    Effect.gen(function*() {
      const second = yield* SecondNode
      const admin = yield* adminToken
      const w = yield* createWorkflow(admin)
      yield* saveDag(admin, w.id, simpleDag("one"))
      // A dry run on the second node leaves it a copy of the row with no active version.
      const dry = yield* request(second.baseUrl, "POST", `/api/v1/workflow/workflows/${w.id}/dry-run`, {
        token: admin,
        body: { input_params: { message: "hi" } }
      })
      assert.strictEqual(dry.status, 202, dry.text)
      const deliver = yield* webhookOn(second.baseUrl, admin, w.id)
      assert.strictEqual((yield* publish(admin, w.id)).body.number, 2)
      const started = yield* deliver("after-publish")
      assert.strictEqual(started.status, 202, JSON.stringify(started.body))
      const run = yield* http("GET", `/api/v1/workflow/runs/${started.body.run_id}`, { token: admin })
      assert.strictEqual(run.body.version, 2)
    }))
})
