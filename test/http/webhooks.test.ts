import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { respondNode } from "../support/Workflows.js"

const dag = { nodes: [respondNode("answer", "Order {{workflow_input.order}}")], edges: [] }

const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

/** A delivery as a sender makes it: raw bytes, its own headers, no credential. */
const deliver = (url: string, body: string, headers: Record<string, string>) =>
  Effect.promise(async () => {
    const r = await fetch(url, { method: "POST", body, headers })
    const text = await r.text()
    return { status: r.status, text, body: text === "" ? undefined : JSON.parse(text), headers: r.headers }
  })

layer(RunPlatformLive({ WEBHOOK_DELIVERIES_PER_MINUTE: "8" }), { excludeTestServices: true, timeout: "60 seconds" })("webhooks", (it) => {
  it.effect("a signed JSON delivery starts one run (webhook); X-Webhook-Id replays it; bad signatures start nothing", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "handled" }))
      const platform = yield* TestPlatform
      const id = yield* publishedWorkflow(admin, dag)
      const created = yield* http("POST", `/api/v1/workflow/workflows/${id}/webhooks`, { token: admin })
      assert.strictEqual(created.status, 201, created.text)
      assert.match(created.body.secret, /^whsec_[0-9a-f]{64}$/)
      const url = new URL(created.body.url)
      assert.strictEqual(url.pathname, `/api/v1/workflow/webhooks/${created.body.id}`)
      const target = `${platform.baseUrl}${url.pathname}`
      const listed = yield* http("GET", `/api/v1/workflow/workflows/${id}/webhooks`, { token: admin })
      assert.deepStrictEqual(listed.body.items.map((w: { id: string }) => w.id), [created.body.id])
      assert.notProperty(listed.body.items[0], "secret")

      const body = JSON.stringify({ order: 42 })
      const secret = created.body.secret as string
      const unsigned = yield* deliver(target, body, { "content-type": "application/json" })
      assert.strictEqual(unsigned.status, 401)
      assert.strictEqual(unsigned.body.code, "INVALID_SIGNATURE")
      const forged = yield* deliver(target, body, { "content-type": "application/json", "x-signature-256": sign("whsec_wrong", body) })
      assert.strictEqual(forged.status, 401)
      const tampered = yield* deliver(target, JSON.stringify({ order: 43 }), { "content-type": "application/json", "x-signature-256": sign(secret, body) })
      assert.strictEqual(tampered.status, 401)
      const runsBefore = yield* http("GET", `/api/v1/workflow/workflows/${id}/runs`, { token: admin })
      assert.strictEqual(runsBefore.body.total, 0)

      const headers = { "content-type": "application/json", "x-signature-256": sign(secret, body), "x-webhook-id": "evt_1" }
      const first = yield* deliver(target, body, headers)
      assert.strictEqual(first.status, 202, first.text)
      const again = yield* deliver(target, body, headers)
      assert.strictEqual(again.status, 202)
      assert.strictEqual(again.body.run_id, first.body.run_id)
      const done = yield* waitForStatus(admin, first.body.run_id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed")
      assert.strictEqual(done.trigger_type, "webhook")
      assert.strictEqual(model.requests.at(-1)?.messages[0]?.content, "Order 42")
      const other = yield* deliver(target, body, { ...headers, "x-webhook-id": "evt_2" })
      assert.notStrictEqual(other.body.run_id, first.body.run_id)

      // Only builders manage webhooks; a deleted webhook's url is 404.
      const user = yield* createMember(admin, "user")
      const userToken = yield* loginToken(user.email, user.password)
      assert.strictEqual((yield* http("POST", `/api/v1/workflow/workflows/${id}/webhooks`, { token: userToken })).status, 403)
      const removed = yield* http("DELETE", `/api/v1/workflow/workflows/${id}/webhooks/${created.body.id}`, { token: admin })
      assert.strictEqual(removed.status, 204)
      assert.strictEqual((yield* deliver(target, body, { ...headers, "x-webhook-id": "evt_3" })).status, 404)
    }))

  it.effect("non-JSON is 415, over 1 MiB is 413, each webhook is rate-limited (429), and bad signatures are limited per address without using its quota", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const platform = yield* TestPlatform
      const id = yield* publishedWorkflow(admin, dag)
      const created = yield* http("POST", `/api/v1/workflow/workflows/${id}/webhooks`, { token: admin })
      const target = `${platform.baseUrl}${new URL(created.body.url).pathname}`
      const secret = created.body.secret as string
      const text = yield* deliver(target, "order=1", { "content-type": "application/x-www-form-urlencoded", "x-signature-256": sign(secret, "order=1") })
      assert.strictEqual(text.status, 415)
      assert.strictEqual(text.body.code, "UNSUPPORTED_MEDIA_TYPE")
      const big = JSON.stringify({ order: "x".repeat(1024 * 1024) })
      const large = yield* deliver(target, big, { "content-type": "application/json", "x-signature-256": sign(secret, big) })
      assert.strictEqual(large.status, 413)
      const body = JSON.stringify({ order: 1 })
      // Wrong signatures use none of the webhook's 8 a minute; past 30 from one address they are 429.
      // (The first test's two forged deliveries came from this address in this minute too.)
      const forged: Array<number> = []
      for (let i = 0; i < 31; i++) {
        forged.push((yield* deliver(target, body, { "content-type": "application/json", "x-signature-256": sign("whsec_guess", body) })).status)
      }
      assert.isAtLeast(forged.filter((s) => s === 401).length, 20)
      assert.strictEqual(forged.indexOf(429), forged.filter((s) => s === 401).length, "refused as 401 until the address's limit, then 429")
      const statuses: Array<number> = []
      for (let i = 0; i < 9; i++) {
        statuses.push(
          (yield* deliver(target, body, { "content-type": "application/json", "x-signature-256": sign(secret, body), "x-webhook-id": `b${i}` })).status
        )
      }
      assert.strictEqual(statuses.filter((s) => s === 202).length, 8)
      assert.strictEqual(statuses.at(-1), 429)
    }))
})
