import { assert, layer } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { answerOf, chatWorkflow, isTitleRequest, messagesOf, newSession, query, send } from "../support/Chat.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { eventually, RunPlatformLive } from "../support/RunPlatform.js"
import { waitForStatus } from "../support/Runs.js"
import { lastUser, ScriptedModel } from "../support/ScriptedModel.js"

const kbBase = "/api/v1/ingestion/knowledge-bases"

layer(RunPlatformLive({ CHAT_RECONCILE_SECONDS: "1" }), { excludeTestServices: true, timeout: "90 seconds" })("chat recovery", (it) => {
  it.effect("a turn whose run ended unheard gets its answer rebuilt from the stored run, sources and buttons included", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => isTitleRequest(r) ? { text: "T" } : { text: "Shipping is free [1]." })
      const kb = (yield* http("POST", kbBase, { token, body: { name: "Shipping" } })).body.id as string
      yield* http("POST", `${kbBase}/${kb}/documents`, { token, body: { title: "Shipping", content: "Shipping is free over 50 euros." } })
      const dag = {
        nodes: [{
          id: "search",
          type: "agent",
          agent_config: { agent_type: "search_respond", type_version: "v1", system_prompt_template: "Answer.", knowledge_base_ids: [kb] }
        }],
        edges: [],
        outputs: [{ name: "response_buttons", value: "[\"Thanks\"]" }]
      }
      const wf = yield* chatWorkflow(token, dag)
      const session = yield* newSession(token, wf)
      const sent = yield* send(token, session.id, { content: "is shipping free" })
      const original = yield* answerOf(token, session.id, sent.body.assistant_message_id)
      assert.deepStrictEqual(original.sources.map((s) => s.title), ["Shipping"])

      yield* query("DELETE FROM chat_messages WHERE id = $1", [original.id])
      yield* query("UPDATE chat_messages SET status = 'running' WHERE id = $1", [sent.body.message_id])
      const rebuilt = yield* answerOf(token, session.id, sent.body.assistant_message_id)
      assert.strictEqual(rebuilt.content, original.content)
      assert.deepStrictEqual(rebuilt.sources, original.sources)
      assert.deepStrictEqual(rebuilt.response_buttons, [{ label: "Thanks", value: "Thanks" }])
      const [user] = yield* messagesOf(token, session.id)
      assert.strictEqual(user.status, "answered")
    }))

  it.effect("a queue left without a running turn is started again", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const release = yield* Deferred.make<void>()
      const gate = Effect.runPromise(Deferred.await(release))
      model.setScript((r) => isTitleRequest(r) ? { text: "T" } : lastUser(r) === "slow" ? { text: "late", hold: gate } : { text: "quick" })
      const wf = yield* chatWorkflow(token)
      const session = yield* newSession(token, wf)
      const slow = yield* send(token, session.id, { content: "slow" })
      yield* eventually(Effect.sync(() => (model.inFlight() > 0 ? true : undefined)), "the slow call")
      const next = yield* send(token, session.id, { content: "next" })
      assert.strictEqual(next.body.status, "queued")
      // As if the slow turn's end had been recorded but the next turn never released.
      yield* query("UPDATE chat_messages SET status = 'answered' WHERE id = $1", [slow.body.message_id])
      const run = yield* waitForStatus(token, next.body.run_id, ["completed", "failed"])
      assert.strictEqual(run.status, "completed")
      assert.strictEqual((yield* answerOf(token, session.id, next.body.assistant_message_id)).content, "quick")
      yield* Deferred.succeed(release, undefined)
      yield* waitForStatus(token, slow.body.run_id, ["completed"])
    }))
})
