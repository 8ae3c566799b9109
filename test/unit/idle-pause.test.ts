import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber } from "effect"
import { makeIdlePause } from "../../platform/IdlePause.js"

const ms = (pause: { readonly current: Effect.Effect<Duration.Duration> }) => Effect.map(pause.current, Duration.toMillis)

describe("the pause of a polling loop while idle (platform/IdlePause.ts)", () => {
  it.live("doubles after each empty round up to its ceiling, and starts again after a round with work", () =>
    Effect.gen(function*() {
      const pause = makeIdlePause("500 millis", "2 seconds")
      const woken = Effect.void
      assert.strictEqual(yield* ms(pause), 500)
      const after: Array<number> = []
      for (let i = 0; i < 4; i++) {
        yield* pause.idle(woken)
        after.push(yield* ms(pause))
      }
      assert.deepStrictEqual(after, [1000, 2000, 2000, 2000], "the ceiling holds")
      yield* pause.worked
      assert.strictEqual(yield* ms(pause), 500)
    }))

  it.live("a pause ends at its length, at a shorter cap (the next fire time known), or at a wake", () =>
    Effect.gen(function*() {
      // Each of these would wait a minute if the pause ignored what ends it (the test's own timeout fails it).
      yield* makeIdlePause("5 millis", "1 minute").idle(Effect.never)
      yield* makeIdlePause("1 minute", "1 minute").idle(Effect.never, Duration.millis(5))
      const wake = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(makeIdlePause("1 minute", "1 minute").idle(Deferred.await(wake)))
      yield* Deferred.succeed(wake, undefined)
      yield* Fiber.join(fiber)
    }), 10_000)
})
