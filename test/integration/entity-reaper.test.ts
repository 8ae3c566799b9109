import { Entity, TestRunner } from "@effect/cluster"
import { Rpc } from "@effect/rpc"
import { assert, it } from "@effect/vitest"
import { Effect, Layer } from "effect"

// patches/@effect+cluster+*.patch: the cluster's entity reaper closed every idle entity of a pass
// in one turn of the event loop (every run's entity, 5 s of them, a 100-400 ms stall under load
// that every request and run on the process waited out; bench/README.md). Patched, it lets the
// loop turn every 16 entities, and it looks every 500 ms instead of every 5 s. Counted in turns, not timed: a chain of setImmediate, started by the
// first close, counts the loop's turns; unpatched, all 64 closes land in the turn of the first.
const ENTITIES = 64
const Probe = Entity.make("Probe", [Rpc.make("Ping")])

it.live("the entity reaper lets the event loop turn while it closes a pass's idle entities", () =>
  Effect.gen(function*() {
    let turns = 0
    let spinning = false
    const closedAt: Array<number> = []
    const spin = () => {
      turns += 1
      if (closedAt.length < ENTITIES) setImmediate(spin)
      else spinning = false
    }
    const onClose = () => {
      if (!spinning) {
        spinning = true
        setImmediate(spin)
      }
      closedAt.push(turns)
    }
    const ProbeLive = Probe.toLayer(
      Effect.as(Effect.addFinalizer(() => Effect.sync(onClose)), { Ping: () => Effect.void }),
      { maxIdleTime: "100 millis" }
    )
    yield* Effect.gen(function*() {
      const client = yield* Probe.client
      yield* Effect.forEach(Array.from({ length: ENTITIES }, (_, i) => `p${i}`), (id) => client(id).Ping(), { concurrency: 16, discard: true })
      const idleSince = Date.now()
      for (let i = 0; i < 150 && closedAt.length < ENTITIES; i++) yield* Effect.sleep("100 millis")
      // Patched, the reaper looks every 500 ms (unpatched: every 5 s at the least), so a pass closes
      // half a second of idle entities, not 5 s of them: all 64 go within a few passes.
      const closedWithin = Date.now() - idleSince
      assert.isBelow(closedWithin, 4_000, `the reaper's passes come every 500 ms, not every 5 s (all closed after ${closedWithin} ms)`)
    }).pipe(Effect.provide(ProbeLive.pipe(Layer.provideMerge(TestRunner.layer))), Effect.scoped)
    assert.strictEqual(closedAt.length, ENTITIES, "every idle entity was closed by the reaper")
    assert.isAtLeast(new Set(closedAt).size, ENTITIES / 16, `the closes by turn: ${closedAt.join(",")}`)
  }), 30_000)
