import { assert, layer } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { uuidV7Time } from "../../platform/TimedId.js"
import { answerOf, chatDag, chatWorkflow, conversationOf, isTitleRequest, messagesOf, newSession, query, send } from "../support/Chat.js"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, RunPlatformLive } from "../support/RunPlatform.js"
import { readStream, waitForStatus } from "../support/Runs.js"
import { lastUser, ScriptedModel } from "../support/ScriptedModel.js"

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "90 seconds" })("chat", (it) => {
  it.effect("sessions: create with input_params, list by newest activity, current, rename, soft delete; owner only", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const wf = yield* chatWorkflow(token)
      const first = yield* http("POST", "/api/v1/chat/sessions", { token, body: { workflow_id: wf, input_params: { plan: "gold" } } })
      assert.strictEqual(first.status, 201, first.text)
      assert.strictEqual(first.body.title, "")
      assert.deepStrictEqual(first.body.input_params, { plan: "gold" })
      assert.strictEqual(first.body.workflow_id, wf)
      const second = yield* newSession(token, wf)
      const current = yield* http("GET", `/api/v1/chat/sessions/current?workflow_id=${wf}`, { token })
      assert.strictEqual(current.body.id, second.id)
      yield* send(token, first.body.id, { content: "bump" })
      const listed = yield* http("GET", `/api/v1/chat/sessions?workflow_id=${wf}`, { token })
      assert.deepStrictEqual(listed.body.items.map((s: { id: string }) => s.id), [first.body.id, second.id])
      assert.strictEqual(listed.body.total, 2)
      const renamed = yield* http("PATCH", `/api/v1/chat/sessions/${second.id}`, { token, body: { title: "Travel plans" } })
      assert.strictEqual(renamed.body.title, "Travel plans")

      const member = yield* createMember(token, "user")
      const memberToken = yield* loginToken(member.email, member.password)
      assert.strictEqual((yield* http("GET", `/api/v1/chat/sessions/${second.id}`, { token: memberToken })).status, 404)
      assert.strictEqual((yield* http("GET", `/api/v1/chat/sessions/${second.id}/messages`, { token: memberToken })).status, 404)
      assert.strictEqual((yield* send(memberToken, second.id, { content: "hi" })).status, 404)
      assert.strictEqual((yield* http("DELETE", `/api/v1/chat/sessions/${second.id}`, { token: memberToken })).status, 404)
      assert.deepStrictEqual((yield* http("GET", "/api/v1/chat/sessions", { token: memberToken })).body.items, [])
      const theirs = yield* http("GET", `/api/v1/chat/sessions/current?workflow_id=${wf}`, { token: memberToken })
      assert.strictEqual(theirs.status, 200)
      assert.notStrictEqual(theirs.body.id, second.id)

      assert.strictEqual((yield* http("DELETE", `/api/v1/chat/sessions/${second.id}`, { token })).status, 204)
      assert.strictEqual((yield* http("GET", `/api/v1/chat/sessions/${second.id}`, { token })).status, 404)
      const after = yield* http("GET", `/api/v1/chat/sessions?workflow_id=${wf}`, { token })
      assert.deepStrictEqual(after.body.items.map((s: { id: string }) => s.id), [first.body.id])

      const form = yield* http("POST", "/api/v1/workflow/workflows", { token, body: { name: "Form" } })
      const refused = yield* http("POST", "/api/v1/chat/sessions", { token, body: { workflow_id: form.body.id } })
      assert.strictEqual(refused.status, 422)
      assert.strictEqual(refused.body.code, "NOT_A_CHAT_AI_EMPLOYEE")
    }))

  it.effect("a message runs the AI Employee with the whole conversation; the answer is written at the end; the title summarizes", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "\"Refund for a late order.\"" } : { text: `You said: ${lastUser(r)}` })
      const wf = yield* chatWorkflow(token)
      const session = yield* newSession(token, wf, { plan: "gold" })
      const sent = yield* send(token, session.id, { content: "My order is late" })
      assert.strictEqual(sent.status, 202, sent.text)
      assert.strictEqual(sent.body.status, "running")
      assert.strictEqual(sent.body.session_id, session.id)
      const run = yield* waitForStatus(token, sent.body.run_id, ["completed", "failed"])
      // A turn's run id carries its time, as every run's does: it lives in its day's partition of the run tables.
      assert.closeTo(uuidV7Time(sent.body.run_id) ?? 0, Date.now(), 60_000)
      assert.strictEqual(run.status, "completed")
      assert.strictEqual(run.trigger_type, "ui")
      assert.strictEqual(run.session_id, session.id)
      assert.strictEqual(run.input_params.plan, "gold")
      assert.strictEqual(run.input_params.message, "My order is late")
      const answer = yield* answerOf(token, session.id, sent.body.assistant_message_id)
      assert.strictEqual(answer.content, "You said: My order is late")
      assert.strictEqual(answer.status, "completed")
      assert.strictEqual(answer.reply_to, sent.body.message_id)
      assert.strictEqual(answer.run_id, sent.body.run_id)

      const title = yield* eventually(
        http("GET", `/api/v1/chat/sessions/${session.id}`, { token }).pipe(Effect.map((r) => r.body.title || undefined)),
        "a session title"
      )
      assert.strictEqual(title, "Refund for a late order")

      const next = yield* send(token, session.id, { content: "Can I get a refund?" })
      yield* answerOf(token, session.id, next.body.assistant_message_id)
      const secondCall = model.requests.filter((r) => !isTitleRequest(r)).at(-1)!
      assert.deepStrictEqual(conversationOf(secondCall), [
        "user: My order is late",
        "assistant: You said: My order is late",
        "user: Can I get a refund?"
      ])
      const all = yield* messagesOf(token, session.id)
      assert.deepStrictEqual(all.map((m) => `${m.role}:${m.status}`), ["user:answered", "assistant:completed", "user:answered", "assistant:completed"])
      const titleCalls = model.requests.filter((r) => isTitleRequest(r) && (r.messages[1]?.content ?? "").includes("My order is late"))
      assert.strictEqual(titleCalls.length, 1)
      const kept = yield* http("GET", `/api/v1/chat/sessions/${session.id}`, { token })
      assert.strictEqual(kept.body.title, "Refund for a late order")
      const recent = yield* http("GET", "/api/v1/workflow/runs?limit=100", { token })
      const folded = recent.body.items.filter((r: { session_id?: string }) => r.session_id === session.id)
      assert.strictEqual(folded.length, 1)
      assert.strictEqual(folded[0].run_count, 2)
      assert.strictEqual(folded[0].id, next.body.run_id)
    }))

  it.effect("a failed run leaves an assistant message that says so", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "x" } : { status: 400, text: "bad request" })
      const wf = yield* chatWorkflow(token)
      const session = yield* newSession(token, wf)
      const sent = yield* send(token, session.id, { content: "Hello?" })
      const answer = yield* answerOf(token, session.id, sent.body.assistant_message_id)
      assert.strictEqual(answer.status, "failed")
      assert.include(answer.content, "could not answer")
      assert.isString(answer.error)
      const [user] = yield* messagesOf(token, session.id)
      assert.strictEqual(user.status, "failed")
      assert.strictEqual((yield* http("GET", `/api/v1/chat/sessions/${session.id}`, { token })).body.title, "")
    }))

  it.effect("a dry-run message invokes no side-effecting tool and stores no assistant turn", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const to = `chat.dry.${Date.now()}@example.test`
      model.setScript((r) =>
        isTitleRequest(r)
          ? { text: "Mail" }
          : r.messages.some((m) => m.role === "tool")
          ? { text: "Mail handled." }
          : { toolCalls: [{ id: "m1", name: "builtin_send_email", arguments: JSON.stringify({ to, subject: "Hi", body: "Hello" }) }] }
      )
      const dag = {
        nodes: [{
          id: "act",
          type: "agent",
          agent_config: { agent_type: "custom", type_version: "v1", system_prompt_template: "Send mail", action_ids: ["builtin.send_email"] }
        }],
        edges: []
      }
      const wf = yield* chatWorkflow(token, dag)
      const session = yield* newSession(token, wf)
      const dry = yield* send(token, session.id, { content: "mail them", is_dry_run: true })
      assert.strictEqual(dry.status, 202, dry.text)
      const run = yield* waitForStatus(token, dry.body.run_id, ["completed", "failed"])
      assert.strictEqual(run.status, "completed")
      assert.strictEqual(run.is_dry_run, true)
      const stream = yield* readStream(token, dry.body.run_id, { path: `/api/v1/chat/runs/${dry.body.run_id}/stream` })
      const reply = stream.events.find((e) => e.data.type === "assistant_message")!
      assert.strictEqual(reply.data.persisted, false)
      assert.strictEqual(reply.data.content, "Mail handled.")
      const toolReply = model.requests.at(-1)!.messages.find((m) => m.role === "tool")!
      assert.include(toolReply.content!, "\"dry_run\":true")
      assert.deepStrictEqual(yield* query("SELECT subject FROM mail_outbox WHERE to_address = $1", [to]), [])
      const items = yield* messagesOf(token, session.id)
      assert.deepStrictEqual(items.map((m) => `${m.role}:${m.is_dry_run}:${m.status}`), ["user:true:answered"])

      const real = yield* send(token, session.id, { content: "now for real" })
      yield* answerOf(token, session.id, real.body.assistant_message_id)
      const firstCall = model.requests.filter((r) => !isTitleRequest(r) && r.messages.every((m) => m.role !== "tool")).at(-1)!
      assert.deepStrictEqual(conversationOf(firstCall), ["user: now for real"])
    }))

  it.effect("messages sent while a run is busy are queued and answered one at a time, in order", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const release = yield* Deferred.make<void>()
      const gate = Effect.runPromise(Deferred.await(release))
      model.setScript((r) =>
        isTitleRequest(r) ? { text: "Queue" } : lastUser(r) === "first" ? { text: "one", hold: gate } : { text: `after ${r.messages.length}` }
      )
      const wf = yield* chatWorkflow(token)
      const session = yield* newSession(token, wf)
      yield* send(token, session.id, { content: "first" })
      yield* eventually(Effect.sync(() => model.inFlight() > 0 ? true : undefined), "the first model call")
      const b = yield* send(token, session.id, { content: "second" })
      const c = yield* send(token, session.id, { content: "third" })
      assert.strictEqual(b.body.status, "queued")
      assert.strictEqual(c.body.status, "queued")
      const heldRun = yield* http("GET", `/api/v1/workflow/runs/${b.body.run_id}`, { token })
      assert.strictEqual(heldRun.body.status, "pending")
      const queued = yield* messagesOf(token, session.id)
      assert.deepStrictEqual(queued.map((m) => m.status), ["running", "queued", "queued"])
      yield* Deferred.succeed(release, undefined)
      yield* answerOf(token, session.id, c.body.assistant_message_id)
      const all = yield* messagesOf(token, session.id)
      assert.deepStrictEqual(all.map((m) => `${m.role}:${m.content}`), [
        "user:first",
        "assistant:one",
        "user:second",
        "assistant:after 4",
        "user:third",
        "assistant:after 6"
      ])
      const calls = model.requests.filter((r) => !isTitleRequest(r)).slice(-2)
      assert.deepStrictEqual(conversationOf(calls[0]), ["user: first", "assistant: one", "user: second"])
    }))

  it.effect("the chat stream carries the run's events and the answer, resumes with Last-Event-ID, and is the owner's", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "Stream" } : { text: "streamed answer here", chunks: ["streamed ", "answer ", "here"] })
      const wf = yield* chatWorkflow(token, chatDag())
      const session = yield* newSession(token, wf)
      const sent = yield* send(token, session.id, { content: "stream please" })
      const path = `/api/v1/chat/runs/${sent.body.run_id}/stream`
      const full = yield* readStream(token, sent.body.run_id, { path })
      assert.strictEqual(full.status, 200)
      assert.strictEqual(full.contentType, "text/event-stream")
      const types = full.events.map((e) => e.data.type)
      assert.includeMembers(types, ["step_started", "token", "step_completed", "assistant_message", "run_completed"])
      assert.isBelow(types.indexOf("assistant_message"), types.indexOf("run_completed"))
      const message = full.events.find((e) => e.data.type === "assistant_message")!
      assert.strictEqual(message.data.message_id, sent.body.assistant_message_id)
      assert.strictEqual(message.data.content, "streamed answer here")
      const from = full.events[2].id
      const resumed = yield* readStream(token, sent.body.run_id, { path, lastEventId: from })
      assert.deepStrictEqual(resumed.events.map((e) => e.id), full.events.filter((e) => e.id > from).map((e) => e.id))

      const member = yield* createMember(token, "user")
      const memberToken = yield* loginToken(member.email, member.password)
      assert.strictEqual((yield* readStream(memberToken, sent.body.run_id, { path })).status, 404)
      const plain = yield* http("POST", `/api/v1/workflow/workflows/${wf}/run`, { token, body: { input_params: { message: "x" } } })
      assert.strictEqual((yield* readStream(token, plain.body.id, { path: `/api/v1/chat/runs/${plain.body.id}/stream` })).status, 404)
    }))

  it.effect("an Idempotency-Key retry of a message returns the first answer and stores nothing new", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const wf = yield* chatWorkflow(token)
      const session = yield* newSession(token, wf)
      const headers = { "idempotency-key": `chat-${Date.now()}` }
      const first = yield* send(token, session.id, { content: "once" }, headers)
      const again = yield* send(token, session.id, { content: "once" }, headers)
      assert.strictEqual(again.status, 202)
      assert.deepStrictEqual(again.body, first.body)
      yield* answerOf(token, session.id, first.body.assistant_message_id)
      assert.strictEqual((yield* messagesOf(token, session.id)).length, 2)
      const bad = yield* send(token, session.id, { content: "" })
      assert.strictEqual(bad.status, 400)
    }))
})
