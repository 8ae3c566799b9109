import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { readStream, readUntil, startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { publish, respondNode, saveDag } from "../support/Workflows.js"

const withHitl = (hitl: Record<string, unknown>, prompt = "Send: {{nodes.ask.hitl.value}}{{nodes.ask.hitl.comment}}") => ({
  nodes: [{ ...respondNode("ask", prompt), hitl }, respondNode("after", "After {{nodes.ask.output.text}}")],
  edges: [{ from: "ask", to: "after" }]
})

const pendingRequest = (token: string, runId: string) =>
  eventually(
    http("GET", "/api/v1/workflow/hitl/pending?page_size=100", { token }).pipe(
      Effect.map((r) => r.body.items.find((i: { run_id: string }) => i.run_id === runId))
    ),
    "the HITL request"
  )

const respond = (token: string, requestId: string, response: unknown) =>
  http("POST", `/api/v1/workflow/hitl/${requestId}/respond`, { token, body: { response } })

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "90 seconds" })("human in the loop", (it) => {
  it.effect("an approval pauses the run; only assignees see and answer it; approving resumes the run", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "done" }))
      const id = yield* publishedWorkflow(admin, withHitl({ type: "approval", prompt: "Send it?", assignee: { role: "builder" } }))
      const run = yield* startRun(admin, id, {})
      const paused = yield* readUntil(admin, run.body.id, "run_paused")
      const event = paused.find((e) => e.data.type === "run_paused")!
      assert.strictEqual(event.data.status, "paused")
      assert.strictEqual((yield* waitForStatus(admin, run.body.id, ["paused"])).status, "paused")

      const builder = yield* createMember(admin, "builder")
      const bToken = yield* loginToken(builder.email, builder.password)
      const user = yield* createMember(admin, "user")
      const uToken = yield* loginToken(user.email, user.password)
      const request = yield* pendingRequest(bToken, run.body.id)
      assert.strictEqual(request.request_id, event.data.request_id)
      assert.strictEqual(request.type, "approval")
      assert.strictEqual(request.status, "pending")
      const forUser = yield* http("GET", "/api/v1/workflow/hitl/pending", { token: uToken })
      assert.isFalse(forUser.body.items.some((i: { run_id: string }) => i.run_id === run.body.id))
      assert.strictEqual((yield* respond(uToken, request.request_id, { approved: true })).status, 403)
      const malformed = yield* respond(bToken, request.request_id, { comment: "no decision" })
      assert.strictEqual(malformed.status, 400)
      assert.strictEqual(malformed.body.code, "INVALID_HITL_RESPONSE")

      const ok = yield* respond(bToken, request.request_id, { approved: true, comment: " looks good" })
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(ok.body.status, "completed")
      assert.deepStrictEqual(ok.body.response, { approved: true, comment: " looks good" })
      const done = yield* waitForStatus(admin, run.body.id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed")
      assert.strictEqual(model.requests.at(-2)?.messages[0]?.content, "Send:  looks good")
      assert.strictEqual((yield* respond(bToken, request.request_id, { approved: true })).status, 409)
      const all = yield* readStream(admin, run.body.id)
      const types = all.events.map((e) => e.data.type)
      assert.deepStrictEqual([types[0], types[1]], ["run_paused", "run_resumed"])
      assert.strictEqual(types.at(-1), "run_completed")
    }))

  it.effect("a rejected approval skips the node and what only it feeds; the run goes on", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const id = yield* publishedWorkflow(admin, withHitl({ type: "approval", prompt: "Go?", assignee: { role: "builder" } }))
      const run = yield* startRun(admin, id, {})
      const request = yield* pendingRequest(admin, run.body.id)
      assert.strictEqual((yield* respond(admin, request.request_id, { approved: false })).status, 200)
      assert.strictEqual((yield* waitForStatus(admin, run.body.id, ["completed", "failed"])).status, "completed")
      const steps = yield* http("GET", `/api/v1/workflow/runs/${run.body.id}/steps`, { token: admin })
      assert.deepStrictEqual(steps.body.items.map((s: { node_id: string; status: string }) => [s.node_id, s.status]), [
        ["ask", "skipped"],
        ["after", "skipped"]
      ])
    }))

  it.effect("ask_human: choice or freetext; an unknown type, a missing value or a value off the list is 400", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const id = yield* publishedWorkflow(admin, withHitl({ type: "ask_human", prompt: "Which plan?", choices: ["basic", "pro"], assignee: { role: "user" } }))
      const run = yield* startRun(admin, id, {})
      const request = yield* pendingRequest(admin, run.body.id)
      assert.deepStrictEqual(request.choices, ["basic", "pro"])
      for (const bad of [{ type: "vote", value: "pro" }, { type: "choice" }, { type: "choice", value: "enterprise" }, "pro"]) {
        const r = yield* respond(admin, request.request_id, bad)
        assert.strictEqual(r.status, 400, JSON.stringify(bad))
      }
      assert.strictEqual((yield* respond(admin, request.request_id, { type: "choice", value: "pro" })).status, 200)
      assert.strictEqual((yield* waitForStatus(admin, run.body.id, ["completed", "failed"])).status, "completed")
      assert.strictEqual(model.requests.at(-2)?.messages[0]?.content, "Send: pro")
    }))

  it.effect("forms: form_data is checked against form_schema", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const id = yield* publishedWorkflow(
        admin,
        withHitl({
          type: "form",
          prompt: "Details",
          form_schema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
          assignee: { role: "builder" }
        })
      )
      const run = yield* startRun(admin, id, {})
      const request = yield* pendingRequest(admin, run.body.id)
      assert.strictEqual((yield* respond(admin, request.request_id, { form_data: { amount: "lots" } })).status, 400)
      assert.strictEqual((yield* respond(admin, request.request_id, { form_data: {} })).status, 400)
      assert.strictEqual((yield* respond(admin, request.request_id, { form_data: { amount: 12 } })).status, 200)
      assert.strictEqual((yield* waitForStatus(admin, run.body.id, ["completed", "failed"])).status, "completed")
    }))

  it.effect("claim: once claimed, only the claimer answers", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const id = yield* publishedWorkflow(admin, withHitl({ type: "approval", prompt: "?", assignee: { role: "builder" } }))
      const run = yield* startRun(admin, id, {})
      const a = yield* createMember(admin, "builder")
      const b = yield* createMember(admin, "builder")
      const aToken = yield* loginToken(a.email, a.password)
      const bToken = yield* loginToken(b.email, b.password)
      const request = yield* pendingRequest(aToken, run.body.id)
      const claimed = yield* http("POST", `/api/v1/workflow/hitl/${request.request_id}/claim`, { token: aToken })
      assert.strictEqual(claimed.status, 200)
      assert.strictEqual(claimed.body.status, "claimed")
      assert.strictEqual(claimed.body.claimed_by, a.id)
      assert.strictEqual((yield* http("POST", `/api/v1/workflow/hitl/${request.request_id}/claim`, { token: bToken })).status, 409)
      assert.strictEqual((yield* respond(bToken, request.request_id, { approved: true })).status, 409)
      assert.strictEqual((yield* respond(aToken, request.request_id, { approved: true })).status, 200)
    }))

  it.effect("a paused run resumes on the version it started on, even after a newer publish", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const id = yield* publishedWorkflow(admin, withHitl({ type: "approval", prompt: "?", assignee: { role: "builder" } }, "Version two"))
      const run = yield* startRun(admin, id, {})
      const request = yield* pendingRequest(admin, run.body.id)
      yield* saveDag(admin, id, withHitl({ type: "approval", prompt: "?", assignee: { role: "builder" } }, "Version four"))
      assert.strictEqual((yield* publish(admin, id)).status, 200)
      assert.strictEqual((yield* respond(admin, request.request_id, { approved: true })).status, 200)
      const done = yield* waitForStatus(admin, run.body.id, ["completed", "failed"])
      assert.strictEqual(done.version, 2)
      assert.strictEqual(model.requests.at(-2)?.messages[0]?.content, "Version two")
    }))

  it.effect("cancel: a paused run is cancelled with its HITL requests counted; a terminal run is 409", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const id = yield* publishedWorkflow(admin, withHitl({ type: "approval", prompt: "?", assignee: { role: "builder" } }))
      const run = yield* startRun(admin, id, {})
      const request = yield* pendingRequest(admin, run.body.id)
      const cancelled = yield* http("POST", `/api/v1/workflow/runs/${run.body.id}/cancel`, { token: admin })
      assert.strictEqual(cancelled.status, 200)
      assert.deepStrictEqual(cancelled.body, { id: run.body.id, status: "cancelled", hitl_cancelled_count: 1 })
      const after = yield* http("GET", `/api/v1/workflow/hitl/${request.request_id}`, { token: admin })
      assert.strictEqual(after.body.status, "cancelled")
      assert.strictEqual((yield* http("POST", `/api/v1/workflow/runs/${run.body.id}/cancel`, { token: admin })).status, 409)
      const s = yield* readStream(admin, run.body.id)
      assert.strictEqual(s.events.at(-1)?.data.type, "run_cancelled")
      assert.strictEqual((yield* respond(admin, request.request_id, { approved: true })).status, 409)
    }))

  it.effect("a run that fails while another branch waits for an approval leaves nothing open: no pending request, no running step", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const id = yield* publishedWorkflow(admin, {
        nodes: [
          { ...respondNode("ask", "Draft"), hitl: { type: "approval", prompt: "Send it?", assignee: { role: "builder" } } },
          { id: "broken", type: "agent", agent_config: { agent_type: "extraction", type_version: "v1", system_prompt_template: "Extract" } }
        ],
        edges: []
      })
      const run = (yield* startRun(admin, id, {})).body.id as string
      const ended = yield* waitForStatus(admin, run, ["completed", "failed"])
      assert.strictEqual(ended.status, "failed")
      const pending = (yield* http("GET", "/api/v1/workflow/hitl/pending?page_size=100", { token: admin })).body.items as Array<{ run_id: string }>
      assert.isFalse(pending.some((i) => i.run_id === run), "no request of the failed run waits in the inbox")
      const steps = (yield* http("GET", `/api/v1/workflow/runs/${run}/steps`, { token: admin })).body.items as Array<{ node_id: string; status: string }>
      assert.isFalse(steps.some((st) => st.status === "running"), JSON.stringify(steps))
      assert.strictEqual(steps.find((st) => st.node_id === "broken")?.status, "failed")
    }))

  it.effect("cancel interrupts an in-flight model call", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      const never = new Promise<void>(() => undefined)
      model.setScript(() => ({ text: "too late", hold: never }))
      const id = yield* publishedWorkflow(admin, { nodes: [respondNode("slow"), respondNode("next")], edges: [{ from: "slow", to: "next" }] })
      const run = yield* startRun(admin, id, {})
      const abortedBefore = model.aborted()
      yield* eventually(Effect.sync(() => (model.inFlight() > 0 ? true : undefined)), "the model call")
      const cancelled = yield* http("POST", `/api/v1/workflow/runs/${run.body.id}/cancel`, { token: admin })
      assert.strictEqual(cancelled.status, 200)
      assert.strictEqual(cancelled.body.hitl_cancelled_count, 0)
      yield* eventually(Effect.sync(() => (model.aborted() > abortedBefore ? true : undefined)), "the model call to be aborted")
      const final = yield* waitForStatus(admin, run.body.id, ["cancelled"])
      assert.strictEqual(final.status, "cancelled")
      const steps = yield* http("GET", `/api/v1/workflow/runs/${run.body.id}/steps`, { token: admin })
      assert.deepStrictEqual(steps.body.items.map((s: { node_id: string; status: string }) => [s.node_id, s.status]), [["slow", "cancelled"]])
    }))

  it.effect("HITL cancel declines the request: the node is skipped", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const id = yield* publishedWorkflow(admin, withHitl({ type: "ask_human", prompt: "?", assignee: { role: "builder" } }))
      const run = yield* startRun(admin, id, {})
      const request = yield* pendingRequest(admin, run.body.id)
      const declined = yield* http("POST", `/api/v1/workflow/hitl/${request.request_id}/cancel`, { token: admin })
      assert.strictEqual(declined.status, 200)
      assert.strictEqual(declined.body.status, "cancelled")
      assert.strictEqual((yield* waitForStatus(admin, run.body.id, ["completed", "failed"])).status, "completed")
    }))

  it.effect("a request assigned to a group is for its members and the members of the groups nested in it", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "done" }))
      const me = yield* http("GET", "/api/v1/auth/users/me", { token: admin })
      yield* http("PATCH", `/api/v1/auth/tenants/${me.body.user.tenant_id}/settings`, { token: admin, body: { user_groups_enabled: true } })
      const parent = yield* http("POST", "/api/v1/auth/groups", { token: admin, body: { name: `Reviewers ${Date.now()}` } })
      const child = yield* http("POST", "/api/v1/auth/groups", {
        token: admin,
        body: { name: `Night reviewers ${Date.now()}`, parent_group_id: parent.body.id }
      })
      const nested = yield* createMember(admin, "user")
      const outsider = yield* createMember(admin, "user")
      assert.strictEqual((yield* http("POST", `/api/v1/auth/groups/${child.body.id}/members`, { token: admin, body: { user_id: nested.id } })).status, 201)
      const id = yield* publishedWorkflow(admin, withHitl({ type: "approval", prompt: "Send it?", assignee: { group_id: parent.body.id } }))
      const run = yield* startRun(admin, id, {})
      yield* waitForStatus(admin, run.body.id, ["paused"])
      const nestedToken = yield* loginToken(nested.email, nested.password)
      const outsiderToken = yield* loginToken(outsider.email, outsider.password)
      const request = yield* pendingRequest(nestedToken, run.body.id)
      const forOutsider = yield* http("GET", "/api/v1/workflow/hitl/pending?page_size=100", { token: outsiderToken })
      assert.isFalse(forOutsider.body.items.some((i: { run_id: string }) => i.run_id === run.body.id))
      assert.strictEqual((yield* respond(outsiderToken, request.request_id, { approved: true })).status, 403)
      assert.strictEqual((yield* respond(nestedToken, request.request_id, { approved: true })).status, 200)
      assert.strictEqual((yield* waitForStatus(admin, run.body.id, ["completed", "failed"])).status, "completed")
    }))
})
