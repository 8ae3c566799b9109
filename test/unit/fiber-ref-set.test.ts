import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, FiberId, FiberRef, FiberRefs } from "effect"

// patches/effect+3.22.4.patch: a fiber reference set to the value its own fiber already gave it
// keeps the fiber's references as they are, without copying them all first. A quarter of a run's
// sets were such: every fork and `getFiberRefs` sets the runtime flags again (bench/README.md,
// twenty-ninth session). And a fiber that holds its references alone sets them in place: a snapshot
// taken of them (getFiberRefs, a fork, a runtime) is never changed by the fiber's later sets
// (thirty-first session).

const ref = FiberRef.unsafeMake(0)
const other = FiberRef.unsafeMake("other")
const fiber = FiberId.runtime(1, 0)
const start = FiberRefs.updateManyAs(FiberRefs.empty(), { entries: [[ref, [[fiber, 1]]], [other, [[fiber, "x"]]]], forkAs: fiber })

describe("fiber reference sets (patches/effect)", () => {
  it("a set to the fiber's own, equal value returns the same references", () => {
    assert.strictEqual(FiberRefs.updateAs(start, { fiberId: fiber, fiberRef: ref, value: 1 }), start)
  })

  it("a set to another value, or by another fiber, still makes new references", () => {
    const changed = FiberRefs.updateAs(start, { fiberId: fiber, fiberRef: ref, value: 2 })
    assert.notStrictEqual(changed, start)
    assert.strictEqual(FiberRefs.getOrDefault(changed, ref), 2)
    assert.strictEqual(FiberRefs.getOrDefault(start, ref), 1, "the references set from are unchanged")
    const child = FiberId.runtime(2, 0)
    const byChild = FiberRefs.updateAs(start, { fiberId: child, fiberRef: ref, value: 1 })
    assert.notStrictEqual(byChild, start)
    assert.strictEqual(FiberRefs.getOrDefault(byChild, ref), 1)
  })

  it("a fiber's sets and reads through Effect are unchanged", () =>
    Effect.runPromise(Effect.gen(function*() {
      yield* FiberRef.set(ref, 5)
      yield* FiberRef.set(ref, 5)
      assert.strictEqual(yield* FiberRef.get(ref), 5)
      const inner = yield* Effect.locally(FiberRef.get(ref), ref, 6)
      assert.strictEqual(inner, 6)
      assert.strictEqual(yield* FiberRef.get(ref), 5)
      const forked = yield* Effect.fork(FiberRef.get(ref))
      assert.strictEqual(yield* forked, 5)
    })))

  it("a snapshot of a fiber's references, a forked child and a runtime keep the values of their moment", () =>
    Effect.runPromise(Effect.gen(function*() {
      yield* FiberRef.set(ref, 10)
      yield* FiberRef.set(ref, 11)
      const snapshot = yield* Effect.getFiberRefs
      yield* FiberRef.set(ref, 12)
      yield* FiberRef.set(ref, 13)
      assert.strictEqual(FiberRefs.getOrDefault(snapshot, ref), 11, "the snapshot is not changed by later sets")
      const runtime = yield* Effect.runtime<never>()
      yield* FiberRef.set(ref, 14)
      assert.strictEqual(FiberRefs.getOrDefault(runtime.fiberRefs, ref), 13)
      const go = yield* Deferred.make<void>()
      const child = yield* Effect.fork(Effect.zipRight(Deferred.await(go), FiberRef.get(ref)))
      yield* FiberRef.set(ref, 15)
      yield* Deferred.succeed(go, undefined)
      assert.strictEqual(yield* Fiber.await(child).pipe(Effect.flatten), 14, "the parent's sets after the fork do not reach the child")
      const setter = yield* Effect.fork(Effect.zipRight(FiberRef.set(ref, 20), FiberRef.set(ref, 21)))
      yield* Fiber.await(setter)
      assert.strictEqual(yield* FiberRef.get(ref), 15, "the child's sets do not reach the parent before a join")
      yield* Fiber.join(setter)
      assert.strictEqual(yield* FiberRef.get(ref), 21, "a join gives the parent the child's values")
      assert.strictEqual(FiberRefs.getOrDefault(snapshot, ref), 11)
    })))
})
