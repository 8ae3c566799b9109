import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { readStream, startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatformLive } from "../support/TestPlatform.js"
import { createWorkflow, publish, respondNode, saveDag, simpleDag } from "../support/Workflows.js"
void respondNode

const Live = Layer.unwrapEffect(
  Effect.map(ScriptedModel, (model) => TestPlatformLive({ env: { LLM_BASE_URL: model.baseUrl, LLM_MODELS: "test-model,big-model" } }))
).pipe(Layer.provideMerge(ScriptedModel.layer))

const published = (token: string, dag: unknown) =>
  Effect.gen(function*() {
    const w = yield* createWorkflow(token)
    yield* saveDag(token, w.id, dag)
    const p = yield* publish(token, w.id)
    assert.strictEqual(p.status, 200, p.text)
    return w.id as string
  })

layer(Live, { excludeTestServices: true, timeout: "60 seconds" })("runs", (it) => {
  it.effect("a run is accepted (202 pending), executes the respond node on the model and completes", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const id = yield* published(token, simpleDag("Be brief."))
      const r = yield* startRun(token, id, { message: "hello there" })
      assert.strictEqual(r.status, 202, r.text)
      assert.strictEqual(r.body.status, "pending")
      assert.strictEqual(r.body.trigger_type, "ui")
      assert.strictEqual(r.body.version, 2)
      const done = yield* waitForStatus(token, r.body.id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed", JSON.stringify(done))
      assert.deepStrictEqual(done.named_outputs, { answer: "Echo: {\"message\":\"hello there\"}" })
      assert.deepStrictEqual(done.output, done.named_outputs)
      assert.deepStrictEqual(Object.keys(done.token_usage), ["test-model"])
      assert.isAbove(done.token_usage["test-model"].total_tokens, 0)
      const steps = yield* http("GET", `/api/v1/workflow/runs/${r.body.id}/steps`, { token })
      assert.deepStrictEqual(steps.body.items.map((s: { node_id: string; status: string }) => [s.node_id, s.status]), [["answer", "completed"]])
      const model = yield* ScriptedModel
      const request = model.requests.at(-1)!
      assert.strictEqual(request.messages[0]?.content, "Be brief. hello there")
      assert.isTrue(request.stream)
    }))

  it.effect("the stream replays a finished run's events with ids and closes", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const id = yield* published(token, simpleDag())
      const r = yield* startRun(token, id, { message: "one two three" })
      yield* waitForStatus(token, r.body.id, ["completed"])
      const s = yield* readStream(token, r.body.id)
      assert.strictEqual(s.status, 200)
      assert.include(s.contentType ?? "", "text/event-stream")
      const types = s.events.map((e) => e.data.type)
      assert.deepStrictEqual([types[0], types.at(-1)], ["step_started", "run_completed"])
      assert.include(types, "token")
      assert.include(types, "agent_completed")
      assert.include(types, "step_completed")
      const ids = s.events.map((e) => e.id)
      assert.deepStrictEqual(ids, [...ids].sort((a, b) => a - b))
      assert.strictEqual(new Set(ids).size, ids.length)
      const started = s.events[0].data
      assert.strictEqual(started.run_id, r.body.id)
      assert.isString(started.step_id)
      assert.strictEqual(started.node_id, "answer")
      assert.strictEqual(s.events.at(-1)!.data.status, "completed")
      const text = s.events.filter((e) => e.data.type === "token").map((e) => e.data.delta).join("")
      assert.strictEqual(text, "Echo: {\"message\":\"one two three\"}")
      // Resuming after an id gives exactly the later events.
      const resumed = yield* readStream(token, r.body.id, { lastEventId: ids[1] })
      assert.deepStrictEqual(resumed.events.map((e) => e.id), ids.slice(2))
      assert.isTrue(resumed.ended)
      // Reopened at its last event (as EventSource does after the server closes it): 204, which
      // tells an EventSource to stop reconnecting, rather than a stream that waits for nothing.
      const reopened = yield* readStream(token, r.body.id, { lastEventId: ids.at(-1)!, timeoutMs: 10_000 })
      assert.strictEqual(reopened.status, 204)
      assert.deepStrictEqual(reopened.events, [])
      assert.isTrue(reopened.ended, "the stream of an ended run closes instead of waiting for events that never come")
      // An id no stream sent replays everything: not a number, negative, or beyond what a bigint or a double holds exactly.
      for (const bogus of [-3, "abc", "1e999", "99999999999999999999999", "9007199254740993"]) {
        const replayed = yield* readStream(token, r.body.id, { lastEventId: bogus, timeoutMs: 10_000 })
        assert.strictEqual(replayed.status, 200, String(bogus))
        assert.deepStrictEqual(replayed.events.map((e) => e.id), ids, String(bogus))
      }
    }))

  it.effect("input_params are validated against the start node's input_schema; unpublished is 409", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const id = yield* published(token, {
        ...simpleDag(),
        input_schema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }
      })
      const missing = yield* startRun(token, id, {})
      assert.strictEqual(missing.status, 400)
      assert.strictEqual(missing.body.code, "INVALID_INPUT")
      const wrong = yield* startRun(token, id, { message: 5 })
      assert.strictEqual(wrong.status, 400)
      const draft = yield* createWorkflow(token)
      assert.strictEqual((yield* startRun(token, draft.id, {})).status, 409)
    }))
})
