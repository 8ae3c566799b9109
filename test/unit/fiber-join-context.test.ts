import { assert, describe, it } from "@effect/vitest"
import { Context, Differ, Effect, Fiber, FiberRef } from "effect"

// patches/effect+3.22.4.patch: a joined fiber that ends on a context holding what its parent's
// holds is not diffed against their common ancestor's. Before, a run's fibers on the cluster's
// narrow context paid a diff and patch of the whole platform's context at each join
// (bench/README.md, twenty-seventh session).

const tags = Array.from({ length: 40 }, (_, i) => Context.GenericTag<string>(`test/FiberJoin/${i}`))
const large = tags.reduce((context, tag, i) => Context.add(context, tag, `service ${i}`), Context.empty() as Context.Context<string>)
const narrow = Context.make(tags[0], "narrow")

/** A context fiber reference whose differ counts its diffs. */
const countingRef = () => {
  const environment = Differ.environment<string>()
  const counter = { diffs: 0 }
  const differ = Differ.make({
    empty: environment.empty,
    combine: (first, second) => environment.combine(first, second),
    diff: (oldValue: Context.Context<string>, newValue: Context.Context<string>) => {
      counter.diffs++
      return environment.diff(oldValue, newValue)
    },
    patch: (patch, oldValue: Context.Context<string>) => environment.patch(patch, oldValue)
  })
  return { ref: FiberRef.unsafeMakePatch(Context.empty() as Context.Context<string>, { differ, fork: environment.empty }), counter }
}

/** The parent sets `large`, forks a child that sets `childEnds`, then sets `narrow` itself and joins the child. */
const joined = (childEnds: Context.Context<string>) =>
  Effect.gen(function*() {
    const { counter, ref } = countingRef()
    yield* FiberRef.set(ref, large)
    const child = yield* Effect.fork(FiberRef.set(ref, childEnds))
    yield* Fiber.await(child)
    yield* FiberRef.set(ref, narrow)
    yield* Fiber.join(child)
    return { diffs: counter.diffs, after: yield* FiberRef.get(ref) }
  })

describe("fiber joins of context references (patches/effect)", () => {
  it("a child that ends on the parent's own context, or one with the same services, is joined without a diff", () =>
    Effect.runPromise(Effect.gen(function*() {
      const same = yield* joined(narrow)
      assert.strictEqual(same.diffs, 0)
      assert.strictEqual(same.after, narrow)
      const equal = yield* joined(Context.make(tags[0], "narrow"))
      assert.strictEqual(equal.diffs, 0)
      assert.strictEqual(equal.after, narrow)
    })))

  it("a child that ends on another context is still diffed and its changes patched onto the parent's", () =>
    Effect.runPromise(Effect.gen(function*() {
      const other = Context.make(tags[1], "from the child")
      const { after, diffs } = yield* joined(other)
      assert.strictEqual(diffs, 1)
      assert.strictEqual(Context.unsafeGet(after, tags[1]), "from the child")
      assert.isTrue(Context.getOption(after, tags[2])._tag === "None", "what the child removed since the ancestor stays removed")
    })))
})
