import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { answerOf, apiKey, chatWorkflow, isTitleRequest, messagesOf, newSession, send } from "../support/Chat.js"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { respondNode } from "../support/Workflows.js"

// Issue 37, point 2: every way a tenant's runs are started on request is paced as the run
// endpoints are, so a flood cannot go around a tenant's start rate (or the fair shares,
// start-shares.test.ts) through chat, document generation, webhooks or the public app. A refusal
// is 429 RATE_LIMITED with Retry-After and writes nothing.
const refusedCount = Effect.map(
  http("GET", "/metrics"),
  (m) => Number(/^bp_run_starts_refused_total\{[^}]*reason="rate"[^}]*\} (\d+)$/m.exec(m.text)?.[1] ?? "0")
)

const assertRefused = (
  r: { readonly status: number; readonly body: { code?: string; message?: string }; readonly headers: Headers; readonly text: string }
) => {
  assert.strictEqual(r.status, 429, r.text)
  assert.strictEqual(r.body.code, "RATE_LIMITED")
  assert.match(r.body.message ?? "", /may start 1 run a second/)
  assert.strictEqual(Number(r.headers.get("retry-after")), 1)
}

// The allowance comes back one start a second: wait for the next before each kind of start.
const nextStart = Effect.sleep("1100 millis")

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "90 seconds" })("run-start rate beyond the run endpoints", (it) => {
  it.effect("chat messages (console and external), document generation, feedback workflows, webhook deliveries and public app runs count against max_run_starts_per_second; a refused message is not stored", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "T" } : { text: "ok" })
      const tenant = yield* createTenant(admin, `chat-rate-${Date.now().toString(36)}`)
      assert.strictEqual(
        (yield* http("PATCH", `/api/v1/auth/tenants/${tenant.id}/settings`, { token: admin, body: { max_run_starts_per_second: 1 } })).status,
        200
      )
      const member = yield* createMember(admin, "system_admin", { tenantId: tenant.id })
      const token = yield* loginToken(member.email, member.password)
      const triage = yield* publishedWorkflow(token, { nodes: [respondNode("triage", "Triage {{workflow_input.sentiment}}")] })
      const wf = yield* chatWorkflow(token)
      assert.strictEqual(
        (yield* http("PUT", `/api/v1/workflow/workflows/${wf}/config`, {
          token,
          body: { feedback_enabled: true, feedback_workflow_id: triage }
        })).status,
        200
      )
      const before = yield* refusedCount

      // The console's chat: the second message of the same second is refused and not stored.
      const session = yield* newSession(token, wf)
      const sent = yield* send(token, session.id, { content: "one" })
      assert.strictEqual(sent.status, 202, sent.text)
      assertRefused(yield* send(token, session.id, { content: "two" }))
      const answer = yield* answerOf(token, session.id, sent.body.assistant_message_id)
      assert.deepStrictEqual((yield* messagesOf(token, session.id)).map((m) => `${m.role}: ${m.content}`), ["user: one", "assistant: ok"])

      // External chat with an API key, threaded or single-shot: the same rate.
      yield* nextStart
      const key = yield* apiKey(token)
      const external = (body: Record<string, unknown>) =>
        http("POST", "/api/v1/chat/external/chat", { apiKey: key, body: { workflow_id: wf, external_user_id: "visitor-1", ...body } })
      const threaded = yield* external({ conversation_id: "c-1", message: "hello" })
      assert.strictEqual(threaded.status, 202, threaded.text)
      assertRefused(yield* external({ conversation_id: "c-1", message: "again" }))
      assertRefused(yield* external({ message: "single shot" }))
      yield* waitForStatus(token, threaded.body.run_id, ["completed", "failed"])
      assert.deepStrictEqual((yield* messagesOf(token, threaded.body.session_id)).map((m) => m.content), ["hello", "ok"])

      // Document generation.
      yield* nextStart
      const doc = (yield* http("POST", "/api/v1/docgen/documents", { token, body: { title: "Plan", content_html: "<h1>Plan</h1>", workflow_id: triage } })).body
      const generated = yield* http("POST", `/api/v1/docgen/documents/${doc.id}/generate`, { token, body: { workflow_id: triage } })
      assert.strictEqual(generated.status, 202, generated.text)
      assertRefused(yield* http("POST", `/api/v1/docgen/documents/${doc.id}/generate`, { token, body: { workflow_id: triage } }))

      // Feedback: saved either way; its workflow's run refused past the rate, with the reason.
      yield* nextStart
      const path = `/api/v1/chat/messages/${answer.id}/feedback`
      const rated = yield* http("POST", path, { token, body: { sentiment: "negative" } })
      assert.strictEqual(rated.status, 200, rated.text)
      assert.isString(rated.body.run_id)
      const again = yield* http("POST", path, { token, body: { sentiment: "positive" } })
      assert.strictEqual(again.status, 200, again.text)
      assert.strictEqual(again.body.feedback.sentiment, "positive")
      assert.isUndefined(again.body.run_id)
      assert.match(again.body.feedback_workflow_error, /may start 1 run a second/)

      // Without a caller: a webhook's deliveries and a public app's visitors start the tenant's runs too.
      yield* nextStart
      const hook = (yield* http("POST", `/api/v1/workflow/workflows/${triage}/webhooks`, { token })).body
      const delivery = JSON.stringify({ sentiment: "neutral" })
      const deliver = http("POST", new URL(hook.url).pathname, {
        rawBody: delivery,
        headers: { "content-type": "application/json", "x-signature-256": `sha256=${createHmac("sha256", hook.secret).update(delivery).digest("hex")}` }
      })
      const delivered = yield* deliver
      assert.strictEqual(delivered.status, 202, delivered.text)
      assertRefused(yield* deliver)

      yield* nextStart
      assert.strictEqual((yield* http("PATCH", `/api/v1/workflow/workflows/${triage}`, { token, body: { public_app: true } })).status, 200)
      const visit = http("POST", `/api/v1/workflow/public/${triage}/run`, { body: { input_params: {} } })
      const visited = yield* visit
      assert.strictEqual(visited.status, 202, visited.text)
      assertRefused(yield* visit)

      assert.strictEqual((yield* refusedCount) - before, 7)
      for (const id of [generated.body.run_id, rated.body.run_id, delivered.body.run_id, visited.body.id]) {
        assert.strictEqual((yield* waitForStatus(token, id, ["completed", "failed"])).status, "completed")
      }
    }))

  it.effect("a public app's visitors, however many their addresses, get half the tenant's start rate; the tenant's own starts keep the rest", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const tenant = yield* createTenant(admin, `visitor-rate-${Date.now().toString(36)}`)
      assert.strictEqual(
        (yield* http("PATCH", `/api/v1/auth/tenants/${tenant.id}/settings`, { token: admin, body: { max_run_starts_per_second: 4 } })).status,
        200
      )
      const member = yield* createMember(admin, "system_admin", { tenantId: tenant.id })
      const token = yield* loginToken(member.email, member.password)
      const app = yield* publishedWorkflow(token, { nodes: [respondNode("triage", "Triage")] })
      assert.strictEqual((yield* http("PATCH", `/api/v1/workflow/workflows/${app}`, { token, body: { public_app: true } })).status, 200)
      // Three visits, well under the per-address limit: what refuses the third is the visitors' half.
      const visit = http("POST", `/api/v1/workflow/public/${app}/run`, { body: { input_params: {} } })
      yield* nextStart
      const admitted = [yield* visit, yield* visit]
      for (const r of admitted) assert.strictEqual(r.status, 202, r.text)
      const refused = yield* visit
      assert.strictEqual(refused.status, 429, refused.text)
      assert.strictEqual(refused.body.code, "RATE_LIMITED")
      assert.match(refused.body.message, /public apps may start 2 runs a second/)
      assert.isAtLeast(Number(refused.headers.get("retry-after")), 1)
      // The tenant's own starts still have their half of the second.
      const own = yield* http("POST", `/api/v1/workflow/workflows/${app}/run`, { token, body: { input_params: {} } })
      assert.strictEqual(own.status, 202, own.text)
      for (const r of [...admitted, own]) {
        const id = (r.body.id ?? r.body.run_id) as string
        assert.strictEqual((yield* waitForStatus(token, id, ["completed", "failed"])).status, "completed")
      }
    }))
})
