import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken } from "../support/Fixtures.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { respondNode } from "../support/Workflows.js"

// Issue 37: a provider's 429 slows that provider's calls (its Retry-After honoured) instead of
// failing the steps that meet it.
layer(RunPlatformLive(), { excludeTestServices: true, timeout: "90 seconds" })("model rate limits", (it) => {
  it.effect("a 429 pauses every call to the provider for its Retry-After; the steps complete, none fails", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const times: Array<number> = []
      // Five 429s in a row: more than the three retries a failure gets.
      model.setScript(() => {
        times.push(Date.now())
        return times.length <= 5 ? { status: 429, headers: { "retry-after": times.length === 1 ? "1" : "0.2" } } : { text: "ok" }
      })
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("a")] })
      const first = yield* startRun(token, id, {})
      yield* eventually(Effect.sync(() => (times.length > 0 ? true : undefined)), "the first call")
      yield* Effect.sleep("150 millis")
      // Started while the provider's gate is closed: its call waits for the gate too.
      const second = yield* startRun(token, id, {})
      for (const run of [first, second]) {
        const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
        assert.strictEqual(done.status, "completed", JSON.stringify(done))
        assert.deepStrictEqual(done.output, { text: "ok" })
      }
      assert.isAtLeast(times[1] - times[0], 950, "nothing reached the provider before its Retry-After")
      for (let i = 2; i < times.length; i++) assert.isAtLeast(times[i] - times[0], 950)
      assert.strictEqual(times.length, 7, "five refused calls, then one per run")
    }))
})
