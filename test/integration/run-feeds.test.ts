import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Stream, TestClock, TestContext, TestServices } from "effect"
import { Draining } from "../../platform/Draining.js"
import { EventBus } from "../../platform/EventBus.js"
import { uuidV7 } from "../../platform/TimedId.js"
import { memoryJournalLayer, MemoryJournalStore } from "../../runtime/run/MemoryJournal.js"
import { RunFeeds } from "../../services/workflow/RunFeeds.js"

const FeedsLive = RunFeeds.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(memoryJournalLayer(new MemoryJournalStore()), Layer.effect(EventBus, EventBus.memory), Draining.Default))
)

// A test clock of its own, installed with withClock (as admission-parking.test.ts does): test files
// share a worker's modules, and after a platform built in the same worker the test's services
// were not what the default clock gave.
const OwnTestClock = TestClock.defaultTestClock.pipe(
  Layer.provide(Layer.merge(TestServices.liveLayer(), TestServices.annotationsLayer())),
  Layer.provide(TestContext.LiveContext)
)

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const settle = Effect.repeatN(Effect.yieldNow(), 50)

describe("run feeds", () => {
  it.scoped("an open stream gets a keep-alive at once and every 15 s from the process's one loop, and ends when the process drains", () =>
    Effect.flatMap(Effect.map(Layer.build(OwnTestClock), Context.get(TestClock.TestClock)), (clock) => Effect.withClock(keepAlivesAndDrain(clock), clock)))
})

const keepAlivesAndDrain = (clock: TestClock.TestClock) =>
  Effect.gen(function*() {
    const feeds = yield* RunFeeds
    const draining = yield* Draining
    const received: Array<string> = []
    const follow = () =>
      Effect.fork(Stream.runForEach(
        Stream.unwrap(Effect.map(
          feeds.after(uuidV7(), 0),
          Option.getOrElse(() => Stream.empty)
        )),
        (bytes) => Effect.sync(() => void received.push(text(bytes)))
      ))
    const first = yield* follow()
    const second = yield* follow()
    yield* settle
    assert.deepStrictEqual(received, [": keep-alive\n\n", ": keep-alive\n\n"], "each stream starts with one")
    yield* clock.adjust("14 seconds")
    yield* settle
    assert.strictEqual(received.length, 2)
    yield* clock.adjust("1 second")
    yield* settle
    assert.strictEqual(received.length, 4, "one keep-alive to each open stream at 15 s")
    yield* clock.adjust("15 seconds")
    yield* settle
    assert.strictEqual(received.length, 6)
    yield* draining.begin
    yield* Fiber.join(first)
    yield* Fiber.join(second)
    assert.strictEqual(received.length, 6)
    // A stream opened while the process stops ends at once.
    yield* Fiber.join(yield* follow())
    assert.strictEqual(received.length, 6)
  }).pipe(Effect.provide(FeedsLive))
