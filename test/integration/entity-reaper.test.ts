import { Entity, TestRunner } from "@effect/cluster"
import { Rpc } from "@effect/rpc"
import { assert, it } from "@effect/vitest"
import { Effect, Layer } from "effect"

// patches/@effect+cluster+*.patch: the cluster's entity reaper closed every idle entity of a pass
// in one turn of the event loop (every run's entity, 5 s of them, a 100-400 ms stall under load
// that every request and run on the process waited out; bench/README.md). Patched, it lets the
// loop turn every 16 entities. Counted in turns, not timed: a chain of setImmediate, started by the
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
      // The reaper looks every 5 s at the least.
      for (let i = 0; i < 150 && closedAt.length < ENTITIES; i++) yield* Effect.sleep("100 millis")
    }).pipe(Effect.provide(ProbeLive.pipe(Layer.provideMerge(TestRunner.layer))), Effect.scoped)
    assert.strictEqual(closedAt.length, ENTITIES, "every idle entity was closed by the reaper")
    assert.isAtLeast(new Set(closedAt).size, ENTITIES / 16, `the closes by turn: ${closedAt.join(",")}`)
  }), 30_000)
