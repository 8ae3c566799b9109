import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, type Json, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive, sleep } from "../support/RunPlatform.js"
import { waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { respondNode } from "../support/Workflows.js"

const nudge = (id: string, config: Record<string, unknown>) => ({ id, type: "notify_user", notify_user_config: { operation: "send", ...config } })

const cardsOf = (token: string) =>
  http("GET", "/api/v1/workflow/nudges", { token }).pipe(Effect.map((r) => r.body.items as ReadonlyArray<Record<string, Json>>))

const start = (token: string, workflowId: string) =>
  http("POST", `/api/v1/workflow/workflows/${workflowId}/run`, { token, body: { input_params: {} } }).pipe(Effect.map((r) => r.body.id as string))

const runOf = (token: string, runId: string) => http("GET", `/api/v1/workflow/runs/${runId}`, { token }).pipe(Effect.map((r) => r.body))

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("nudges", (it) => {
  it.effect("park: the run pauses until the recipient answers one of the actions, then goes on with the answer", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => ({ text: `echo ${r.messages[0]?.content}` }))
      const member = yield* createMember(admin, "user")
      const memberToken = yield* loginToken(member.email, member.password)
      const id = yield* publishedWorkflow(admin, {
        nodes: [
          nudge("ask", {
            mode: "park",
            recipient: { user_email: member.email },
            title: "Refund for {{run.trigger_type}}?",
            body: "Customer asks for 20 EUR back",
            actions: [{ label: "Approve", value: "approve" }, { label: "Decline", value: "decline" }],
            expires_after_seconds: 600
          }),
          respondNode("after", "Decision: {{nodes.ask.output.response}}")
        ],
        edges: [{ from: "ask", to: "after" }]
      })
      const run = yield* start(admin, id)
      yield* waitForStatus(admin, run, ["paused"])
      const [card] = yield* eventually(Effect.map(cardsOf(memberToken), (c) => c.length > 0 ? c : undefined), "the member's card")
      assert.deepInclude(card, { run_id: run, mode: "park", card_ref: "ask", title: "Refund for ui?", status: "open" })
      assert.isNotNull(card.expires_at)
      assert.deepStrictEqual(yield* cardsOf(admin), [], "cards are for their recipients only")
      assert.strictEqual((yield* http("POST", `/api/v1/workflow/nudges/${card.id}/respond`, { token: admin, body: { value: "approve" } })).status, 404)

      const wrong = yield* http("POST", `/api/v1/workflow/nudges/${card.id}/respond`, { token: memberToken, body: { value: "maybe" } })
      assert.strictEqual(wrong.status, 400)
      assert.strictEqual(wrong.body.code, "INVALID_NUDGE_RESPONSE")
      const answered = yield* http("POST", `/api/v1/workflow/nudges/${card.id}/respond`, { token: memberToken, body: { value: "approve" } })
      assert.strictEqual(answered.status, 200, answered.text)
      assert.strictEqual(answered.body.status, "responded")
      assert.strictEqual(answered.body.response, "approve")
      const again = yield* http("POST", `/api/v1/workflow/nudges/${card.id}/respond`, { token: memberToken, body: { value: "decline" } })
      assert.strictEqual(again.status, 409)
      assert.strictEqual(again.body.code, "NUDGE_CLOSED")

      const done = yield* waitForStatus(admin, run, ["completed", "failed"])
      assert.strictEqual(done.status, "completed", done.error)
      assert.strictEqual(done.output.text, "echo Decision: approve")
      const steps = (yield* http("GET", `/api/v1/workflow/runs/${run}/steps`, { token: admin })).body.items
      assert.deepInclude(steps[0].output, { status: "responded", response: "approve", responded_by: member.id })
      assert.deepStrictEqual(yield* cardsOf(memberToken), [])
    }))

  it.effect("park: with no answer the run goes on at expires_after_seconds, the expiry recorded", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "went on" }))
      const id = yield* publishedWorkflow(admin, {
        nodes: [nudge("ask", { mode: "park", title: "Anyone?", expires_after_seconds: 1 }), respondNode("after", "Status {{nodes.ask.output.status}}")],
        edges: [{ from: "ask", to: "after" }]
      })
      const run = yield* start(admin, id)
      yield* waitForStatus(admin, run, ["paused"])
      // Without a recipient the card goes to whoever started the run.
      assert.strictEqual((yield* cardsOf(admin)).filter((c) => c.run_id === run).length, 1)
      const done = yield* waitForStatus(admin, run, ["completed", "failed"], 15_000)
      assert.strictEqual(done.status, "completed")
      assert.isTrue(model.requests.some((r) => r.messages[0]?.content === "Status expired"))
      assert.strictEqual((yield* cardsOf(admin)).filter((c) => c.run_id === run).length, 0)
    }))

  it.effect("collect: the run does not wait; the answer starts trigger_workflow_id with it", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => ({ text: `got ${r.messages[0]?.content}` }))
      const collector = yield* publishedWorkflow(admin, { nodes: [respondNode("store", "Vote {{workflow_input.nudge.value}}")], edges: [] })
      const id = yield* publishedWorkflow(admin, {
        nodes: [
          nudge("poll", {
            mode: "collect",
            recipient: { role: "builder" },
            title: "Lunch?",
            trigger_workflow_id: collector,
            expires_after_seconds: 3600,
            reminders: { every_seconds: 1, max: 2 }
          })
        ],
        edges: []
      })
      const run = yield* start(admin, id)
      const done = yield* waitForStatus(admin, run, ["completed", "failed"])
      assert.strictEqual(done.status, "completed")
      yield* sleep(1100)
      const card = (yield* cardsOf(admin)).find((c) => c.run_id === run)!
      assert.strictEqual(card.mode, "collect")
      assert.deepInclude(card.reminders, { every_seconds: 1, max: 2 })
      assert.isAtLeast(card.reminders.sent, 1)
      const user = yield* createMember(admin, "user")
      const userToken = yield* loginToken(user.email, user.password)
      assert.isUndefined((yield* cardsOf(userToken)).find((c) => c.run_id === run), "a role below builder does not see it")

      const answered = yield* http("POST", `/api/v1/workflow/nudges/${card.id}/respond`, { token: admin, body: { value: "pizza" } })
      assert.strictEqual(answered.status, 200, answered.text)
      const triggered = answered.body.triggered_run_id as string
      const collected = yield* waitForStatus(admin, triggered, ["completed", "failed"])
      assert.strictEqual(collected.status, "completed")
      assert.strictEqual(collected.workflow_id, collector)
      assert.deepInclude(collected.input_params.nudge, { card_id: card.id, card_ref: "poll", value: "pizza", source_run_id: run })
      assert.strictEqual(collected.output.text, "got Vote pizza")
    }))

  it.effect("notify: update changes an open card, close removes it; a dry run shows no card", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const id = yield* publishedWorkflow(admin, {
        nodes: [
          nudge("tell", { title: "Build started", card_ref: "build" }),
          { id: "progress", type: "notify_user", notify_user_config: { operation: "update", card_ref: "build", title: "Build 50%" } }
        ],
        edges: [{ from: "tell", to: "progress" }]
      })
      const run = yield* start(admin, id)
      assert.strictEqual((yield* waitForStatus(admin, run, ["completed", "failed"])).status, "completed")
      const card = (yield* cardsOf(admin)).find((c) => c.run_id === run)!
      assert.deepInclude(card, { title: "Build 50%", mode: "notify", status: "open", card_ref: "build" })

      const closing = yield* publishedWorkflow(admin, {
        nodes: [
          nudge("tell", { title: "Temporary", card_ref: "t" }),
          { id: "done", type: "notify_user", notify_user_config: { operation: "close", card_ref: "t" } }
        ],
        edges: [{ from: "tell", to: "done" }]
      })
      const closed = yield* start(admin, closing)
      assert.strictEqual((yield* waitForStatus(admin, closed, ["completed", "failed"])).status, "completed")
      assert.isUndefined((yield* cardsOf(admin)).find((c) => c.run_id === closed))
      const dry = (yield* http("POST", `/api/v1/workflow/workflows/${closing}/dry-run`, { token: admin, body: { input_params: {} } })).body.id
      assert.strictEqual((yield* waitForStatus(admin, dry, ["completed", "failed"])).status, "completed")
      assert.isUndefined((yield* cardsOf(admin)).find((c) => c.run_id === dry))
      const missing = yield* publishedWorkflow(admin, {
        nodes: [{ id: "u", type: "notify_user", notify_user_config: { operation: "update", card_ref: "nope" } }],
        edges: []
      })
      const failed = yield* waitForStatus(admin, yield* start(admin, missing), ["completed", "failed"])
      assert.strictEqual(failed.status, "failed")
      assert.include(yield* Effect.map(runOf(admin, failed.id), (r) => String(r.error)), "No nudge card 'nope'")
    }))
})
