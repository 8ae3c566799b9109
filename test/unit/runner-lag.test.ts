import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { EventBus } from "../../platform/EventBus.js"
import { readRunnerLag, RUNNER_LAG_CHANNEL, runnerLagMessage, runnersLag } from "../../platform/LoopLag.js"

// Split deployments: what a runner says of its loop, and what a gateway makes of it
// (through processes: test/e2e/runner-overload.test.ts).
describe("runners' loop lateness over the bus", () => {
  it("a report reads back; anything else on the channel is ignored", () => {
    assert.deepStrictEqual(readRunnerLag(runnerLagMessage("r1", 12.345)), { source: "r1", lateMs: 12.3 })
    for (const junk of ["", "r1", "r1 abc", "r1 -3", " 5", "r1 Infinity"]) assert.isUndefined(readRunnerLag(junk), junk)
  })

  it.scopedLive("the latest runner's fresh report counts; one not renewed for 300 ms no longer does", () =>
    Effect.gen(function*() {
      const bus = yield* EventBus
      const heard = yield* runnersLag
      yield* Effect.sleep("20 millis") // its subscription under way
      const now = () => Date.now()
      assert.strictEqual(heard.worst(now()), 0)
      yield* bus.publish(RUNNER_LAG_CHANNEL, runnerLagMessage("a", 40))
      yield* bus.publish(RUNNER_LAG_CHANNEL, runnerLagMessage("b", 9))
      yield* bus.publish(RUNNER_LAG_CHANNEL, "not a report")
      yield* Effect.sleep("20 millis")
      assert.strictEqual(heard.worst(now()), 40)
      yield* bus.publish(RUNNER_LAG_CHANNEL, runnerLagMessage("a", 2))
      yield* Effect.sleep("20 millis")
      assert.strictEqual(heard.worst(now()), 9)
      assert.strictEqual(heard.worst(now() + 400), 0)
    }).pipe(Effect.provide(Layer.effect(EventBus, EventBus.memory))))
})
