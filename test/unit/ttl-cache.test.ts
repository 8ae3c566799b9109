import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { makeTtlCache } from "../../platform/TtlCache.js"

describe("TtlCache", () => {
  it.effect("serves a value until it expires; a failed load is not kept", () =>
    Effect.gen(function*() {
      const cache = makeTtlCache<number>({ ttlMs: 30, capacity: 10 })
      let loads = 0
      const load = Effect.sync(() => ++loads)
      assert.strictEqual(yield* cache.get("a", load), 1)
      assert.strictEqual(yield* cache.get("a", load), 1)
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 40)))
      assert.strictEqual(yield* cache.get("a", load), 2)
      assert.strictEqual((yield* Effect.either(cache.get("b", Effect.fail("no"))))._tag, "Left")
      assert.strictEqual(yield* cache.get("b", load), 3)
    }))

  it.effect("a value read before a clear is not stored after it", () =>
    Effect.gen(function*() {
      const cache = makeTtlCache<string>({ ttlMs: 60_000, capacity: 10 })
      const gate = yield* Deferred.make<void>()
      const slow = cache.get("k", Effect.as(Deferred.await(gate), "before the write")).pipe(Effect.fork)
      const fiber = yield* slow
      yield* Effect.yieldNow()
      cache.clear()
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(fiber), "before the write")
      assert.strictEqual(yield* cache.get("k", Effect.succeed("after the write")), "after the write")
      cache.delete("k")
      assert.strictEqual(yield* cache.get("k", Effect.succeed("again")), "again")
    }))

  it.effect("at capacity the oldest entry goes", () =>
    Effect.gen(function*() {
      const cache = makeTtlCache<string>({ ttlMs: 60_000, capacity: 2 })
      yield* cache.get("a", Effect.succeed("a1"))
      yield* cache.get("b", Effect.succeed("b1"))
      yield* cache.get("c", Effect.succeed("c1"))
      assert.strictEqual(yield* cache.get("a", Effect.succeed("a2")), "a2")
      assert.strictEqual(yield* cache.get("c", Effect.succeed("c2")), "c1")
    }))
})
