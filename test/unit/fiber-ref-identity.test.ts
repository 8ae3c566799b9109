import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Equal, Exit, Fiber, FiberId, FiberRef, FiberRefs, FiberRefsPatch, Hash } from "effect"

// patches/effect+3.22.4.patch (thirty-second session): a fiber reference's set compares the new
// value with the fiber's own by identity, not by Equal (contexts and hash maps were compared entry
// by entry at every set); FiberRefs.diff reads the old references instead of copying them and skips
// a stack that is the same array; a Deferred's methods live on a prototype, not spread into each.

/** A value whose equality is counted: any structural comparison of it shows. */
class Counted implements Equal.Equal {
  static compared = 0
  constructor(readonly n: number) {}
  [Equal.symbol](that: Equal.Equal): boolean {
    Counted.compared++
    return that instanceof Counted && that.n === this.n
  }
  [Hash.symbol](): number {
    Counted.compared++
    return Hash.number(this.n)
  }
}

const ref = FiberRef.unsafeMake<Counted>(new Counted(0))
const text = FiberRef.unsafeMake("a")
const fiber = FiberId.runtime(1, 0)

describe("fiber reference identity (patches/effect)", () => {
  it("a set compares the fiber's own value by identity: no structural comparison, and the value set is the one read", () =>
    Effect.runPromise(Effect.gen(function*() {
      const first = new Counted(1)
      const equalOne = new Counted(1)
      yield* FiberRef.set(ref, first)
      Counted.compared = 0
      yield* FiberRef.set(ref, equalOne)
      yield* FiberRef.set(ref, new Counted(2))
      yield* FiberRef.set(ref, equalOne)
      assert.strictEqual(Counted.compared, 0, "no value was compared structurally")
      assert.strictEqual(yield* FiberRef.get(ref), equalOne, "the latest value set is read, not an equal earlier one")
    })))

  it("the same value set again keeps the references; an equal but other value replaces it", () => {
    const one = new Counted(1)
    const refs = FiberRefs.updateAs(FiberRefs.empty(), { fiberId: fiber, fiberRef: ref, value: one })
    assert.strictEqual(FiberRefs.updateAs(refs, { fiberId: fiber, fiberRef: ref, value: one }), refs)
    const other = new Counted(1)
    const replaced = FiberRefs.updateAs(refs, { fiberId: fiber, fiberRef: ref, value: other })
    assert.strictEqual(FiberRefs.getOrDefault(replaced, ref), other)
    assert.strictEqual(FiberRefs.getOrDefault(refs, ref), one)
  })

  it("a context provided inside a scope is the one its effects see, and the outer one comes back", () =>
    Effect.runPromise(Effect.gen(function*() {
      class Name extends Context.Tag("test/Name")<Name, string>() {}
      const seen = yield* Effect.provideService(Effect.provideService(Name, Name, "inner"), Name, "outer")
      assert.strictEqual(seen, "inner")
      const outside = yield* Effect.serviceOption(Name)
      assert.isTrue(outside._tag === "None")
    })))

  it("diff and patch: a patch from one set of references to another reproduces it (added, updated, removed, unchanged)", () => {
    const a = FiberRefs.updateManyAs(FiberRefs.empty(), { entries: [[ref, [[fiber, new Counted(1)]]], [text, [[fiber, "a"]]]], forkAs: fiber })
    assert.isTrue(FiberRefsPatch.diff(a, a)._tag === "Empty", "the same references differ in nothing")
    const extra = FiberRef.unsafeMake(0)
    const b = FiberRefs.updateAs(FiberRefs.delete(FiberRefs.updateAs(a, { fiberId: fiber, fiberRef: extra, value: 7 }), text), {
      fiberId: fiber,
      fiberRef: ref,
      value: new Counted(2)
    })
    const patch = FiberRefsPatch.diff(a, b)
    const applied = FiberRefsPatch.patch(patch, fiber, a)
    assert.strictEqual(FiberRefs.getOrDefault(applied, ref).n, 2)
    assert.strictEqual(FiberRefs.getOrDefault(applied, extra), 7)
    assert.isTrue(FiberRefs.get(applied, text)._tag === "None", "the removed reference is gone")
    const back = FiberRefsPatch.patch(FiberRefsPatch.diff(b, a), fiber, applied)
    assert.strictEqual(FiberRefs.getOrDefault(back, ref).n, 1)
    assert.strictEqual(FiberRefs.getOrDefault(back, text), "a")
    assert.isTrue(FiberRefs.get(back, extra)._tag === "None")
  })

  it("a finalizer runs with the references of its acquisition, and the fiber's own come back after it", () =>
    Effect.runPromise(Effect.gen(function*() {
      const seenInFinalizer: Array<string> = []
      yield* Effect.scoped(Effect.gen(function*() {
        yield* FiberRef.set(text, "at acquire")
        yield* Effect.acquireRelease(Effect.void, () => FiberRef.get(text).pipe(Effect.map((t) => void seenInFinalizer.push(t))))
        yield* FiberRef.set(text, "later")
      }))
      assert.deepStrictEqual(seenInFinalizer, ["at acquire"])
      assert.strictEqual(yield* FiberRef.get(text), "later")
    })))

  it("a Deferred shares its methods through a prototype and behaves as before: identity, hash, await, interrupt", () =>
    Effect.runPromise(Effect.gen(function*() {
      const d = yield* Deferred.make<number>()
      const e = yield* Deferred.make<number>()
      assert.notStrictEqual(Object.getPrototypeOf(d), Object.prototype, "the methods are on a prototype")
      assert.strictEqual(Object.getPrototypeOf(d), Object.getPrototypeOf(e))
      assert.deepStrictEqual(Object.keys(d).sort(), ["blockingOn", "state"])
      assert.isTrue(Deferred.DeferredTypeId in d)
      assert.isTrue(Equal.equals(d, d))
      assert.isFalse(Equal.equals(d, e))
      assert.strictEqual(Hash.hash(d), Hash.hash(d))
      const waiter = yield* Effect.fork(d)
      yield* Deferred.succeed(d, 3)
      assert.strictEqual(yield* Fiber.join(waiter), 3)
      assert.strictEqual(yield* d, 3, "a Deferred is an effect that awaits it")
      const stuck = yield* Effect.fork(Deferred.await(e))
      yield* Deferred.interrupt(e)
      assert.isTrue(Exit.isInterrupted(yield* Fiber.await(stuck)))
    })))
})
