import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, FiberRef } from "effect"

// patches/effect+3.22.4.patch (thirty-third session): contexts and fiber references are maps copied
// on every change (a service provided, a span made, a reference set after a fork), dozens of times
// a run. `new Map(map)` walks the source through its iterator, an entry array and a result object
// per entry: 9% of what the platform allocated under load. The patch copies through forEach.

const First = Context.GenericTag<string>("test/First")
const Second = Context.GenericTag<number>("test/Second")
const ref = FiberRef.unsafeMake(0)

/** How often a Map's iterator is asked for while `f` runs. */
const iteratorCalls = <A>(f: () => Promise<A>) => {
  const original = Map.prototype[Symbol.iterator]
  const calls = { n: 0 }
  Map.prototype[Symbol.iterator] = function(this: Map<unknown, unknown>) {
    calls.n++
    return original.call(this)
  }
  return f().finally(() => {
    Map.prototype[Symbol.iterator] = original
  }).then((result) => ({ result, calls: calls.n }))
}

describe("maps copied without their iterator (patches/effect)", () => {
  it("Context.add and Context.merge copy the same entries, in order, without iterating", async () => {
    const { calls, result } = await iteratorCalls(async () => {
      const one = Context.make(First, "a")
      const two = Context.add(one, Second, 2)
      return { one, two }
    })
    // merge walks the added context's entries (its own loop), and copies the first without iterating it
    const merging = await iteratorCalls(async () => Context.merge(result.two, Context.make(First, "b")))
    const merged = merging.result
    assert.strictEqual(calls, 0)
    assert.strictEqual(merging.calls, 1)
    assert.deepStrictEqual([...result.two.unsafeMap.keys()], ["test/First", "test/Second"])
    assert.strictEqual(Context.get(merged, First), "b")
    assert.strictEqual(Context.get(merged, Second), 2)
    assert.strictEqual(result.one.unsafeMap.size, 1, "the source is left as it was")
  })

  it("a service provided and a reference set in a forked fiber read as before, without iterating a map", async () => {
    const program = Effect.gen(function*() {
      const provided = yield* Effect.provideService(Effect.zip(First, Second), Second, 7).pipe(Effect.provideService(First, "x"))
      const child = yield* Effect.fork(Effect.zipRight(FiberRef.set(ref, 5), FiberRef.get(ref)))
      const inChild = yield* Fiber.join(child)
      const inParent = yield* FiberRef.get(ref)
      yield* FiberRef.set(ref, 9)
      return [provided, inChild, inParent, yield* FiberRef.get(ref)] as const
    })
    const warm = await Effect.runPromise(program)
    const { calls, result } = await iteratorCalls(() => Effect.runPromise(program))
    assert.deepStrictEqual(result, warm)
    assert.deepStrictEqual(result, [["x", 7], 5, 5, 9])
    assert.strictEqual(calls, 0)
  })
})
