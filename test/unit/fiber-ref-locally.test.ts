import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, FiberRef, Ref, type Scheduler } from "effect"

// patches/effect+3.22.4.patch: `Effect.locally` (and with it `provideService` and every span's parent)
// sets the value, runs the body and restores the old value on the body's exit in a third of the
// steps `acquireUseRelease` took, about 45 times a run (bench/README.md, thirty-first session). The
// old value must come back however the body ends, and the body keeps the caller's interruptibility.

const ref = FiberRef.unsafeMake(1)
class Service extends Context.Tag("Service")<Service, string>() {}

/** How many steps the fiber runtime takes for `effect`: a scheduler's `shouldYield` is asked once a step. */
const steps = (effect: Effect.Effect<unknown>) => {
  let asked = 0
  const scheduler: Scheduler.Scheduler = {
    scheduleTask: (task) => void setTimeout(task, 0),
    shouldYield: () => {
      asked++
      return false
    }
  }
  Effect.runSync(Effect.withScheduler(effect, scheduler))
  return asked
}

describe("fiber reference locally (patches/effect)", () => {
  it.effect("the old value comes back after a success, a failure and a defect", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Effect.locally(FiberRef.get(ref), ref, 2), 2)
      assert.strictEqual(yield* FiberRef.get(ref), 1)
      const failed = yield* Effect.exit(Effect.locally(Effect.fail("no"), ref, 3))
      assert.deepStrictEqual(failed, Exit.fail("no"))
      assert.strictEqual(yield* FiberRef.get(ref), 1)
      const died = yield* Effect.exit(Effect.locally(Effect.die("boom"), ref, 4))
      assert.isTrue(Exit.isFailure(died))
      assert.strictEqual(yield* FiberRef.get(ref), 1)
      const nested = yield* Effect.locally(Effect.zip(Effect.locally(FiberRef.get(ref), ref, 6), FiberRef.get(ref)), ref, 5)
      assert.deepStrictEqual(nested, [6, 5])
      assert.strictEqual(yield* FiberRef.get(ref), 1)
      const fromBody = yield* Effect.locallyWith(Effect.zipRight(FiberRef.set(ref, 9), FiberRef.get(ref)), ref, (n) => n + 10)
      assert.strictEqual(fromBody, 9)
      assert.strictEqual(yield* FiberRef.get(ref), 1, "a set inside the body is undone too")
    }))

  it.effect("an interrupted body still restores the value before the finalizers outside it run", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<Array<number>>([])
      const entered = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        Effect.locally(Effect.zipRight(Deferred.succeed(entered, undefined), Effect.never), ref, 7).pipe(
          Effect.ensuring(Effect.flatMap(FiberRef.get(ref), (n) => Ref.update(seen, (all) => [...all, n])))
        )
      )
      yield* Deferred.await(entered)
      const exit = yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.isInterrupted(exit))
      assert.deepStrictEqual(yield* Ref.get(seen), [1])
    }))

  it.effect("the body keeps the caller's interruptibility", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* Effect.locally(Effect.checkInterruptible(Effect.succeed), ref, 2))
      assert.isFalse(yield* Effect.uninterruptible(Effect.locally(Effect.checkInterruptible(Effect.succeed), ref, 2)))
    }))

  it.effect("provideService gives the service to the body only", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Effect.provideService(Service, Service, "inner"), "inner")
      const outer = yield* Effect.provideService(
        Effect.zip(Effect.provideService(Service, Service, "inner"), Service),
        Service,
        "outer"
      )
      assert.deepStrictEqual(outer, ["inner", "outer"])
      assert.isTrue(Context.getOption(yield* Effect.context<never>(), Service)._tag === "None")
    }))

  it("takes at most 10 steps of the fiber runtime (acquireUseRelease took 22)", () => {
    const base = steps(Effect.void)
    assert.isAtMost(steps(Effect.locally(Effect.void, ref, 2)) - base, 10)
  })
})
