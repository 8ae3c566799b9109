import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, TestClock } from "effect"
import { makeIdlePause } from "../../platform/IdlePause.js"

/** How long `effect` waits on the test clock, in 50 ms steps (at most 10 s). */
const waited = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    yield* Effect.yieldNow()
    let ms = 0
    while (fiber.unsafePoll() === null && ms < 10_000) {
      yield* TestClock.adjust("50 millis")
      ms += 50
    }
    yield* Fiber.join(fiber)
    return ms
  })

describe("the pause of a polling loop while idle (platform/IdlePause.ts)", () => {
  it.effect("doubles after each empty round up to its ceiling, and starts again after a round with work", () =>
    Effect.gen(function*() {
      const pause = makeIdlePause("500 millis", "2 seconds")
      const never = Effect.never
      assert.deepStrictEqual([yield* waited(pause.idle(never)), yield* waited(pause.idle(never)), yield* waited(pause.idle(never))], [500, 1000, 2000])
      assert.strictEqual(yield* waited(pause.idle(never)), 2000, "the ceiling holds")
      yield* pause.worked
      assert.strictEqual(Duration.toMillis(yield* pause.current), 500)
      assert.strictEqual(yield* waited(pause.idle(never)), 500)
    }))

  it.effect("a cap (the next fire time known) shortens the pause, and a wake ends it at once", () =>
    Effect.gen(function*() {
      const pause = makeIdlePause("500 millis", "2 seconds")
      yield* waited(pause.idle(Effect.never))
      assert.strictEqual(yield* waited(pause.idle(Effect.never, Duration.millis(100))), 100)
      const wake = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(pause.idle(Deferred.await(wake)))
      yield* TestClock.adjust("100 millis")
      yield* Deferred.succeed(wake, undefined)
      yield* Fiber.join(fiber)
      assert.strictEqual(Duration.toMillis(yield* pause.current), 2000)
    }))
})
