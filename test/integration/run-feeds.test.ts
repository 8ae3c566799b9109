import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Stream, TestClock, TestContext, TestServices } from "effect"
import { Draining } from "../../platform/Draining.js"
import { EventBus } from "../../platform/EventBus.js"
import { uuidV7 } from "../../platform/TimedId.js"
import { memoryJournalLayer, MemoryJournalStore } from "../../runtime/run/MemoryJournal.js"
import { runChannel, RunEvents, type StoredEvent } from "../../runtime/run/RunEvents.js"
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

/** A run's events as the journal would hold them, with reads that fail while `failing` lasts (the database away). */
const flakyEvents = () => {
  const stored: Array<StoredEvent> = []
  const state = { failing: 0, failed: 0 }
  const layer = Layer.succeed(RunEvents, {
    after: (_runId, seq) =>
      Effect.suspend(() => {
        if (state.failing > 0) {
          state.failing--
          state.failed++
          return Effect.dieMessage("the database is away")
        }
        return Effect.succeed(stored.filter((e) => e.seq > seq))
      }),
    endedBy: () => Effect.succeed(false),
    notify: () => Effect.void
  })
  return { stored, state, layer }
}

describe("run feeds", () => {
  it.scoped("a read of the feed's reader that fails is tried again a second later; its followers still get every event", () =>
    Effect.flatMap(Effect.map(Layer.build(OwnTestClock), Context.get(TestClock.TestClock)), (clock) => {
      const events = flakyEvents()
      const live = RunFeeds.Default.pipe(Layer.provideMerge(Layer.mergeAll(events.layer, Layer.effect(EventBus, EventBus.memory), Draining.Default)))
      return Effect.withClock(readsRetried(clock, events).pipe(Effect.provide(live)), clock)
    }))

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

const readsRetried = (clock: TestClock.TestClock, events: ReturnType<typeof flakyEvents>) =>
  Effect.gen(function*() {
    const feeds = yield* RunFeeds
    const bus = yield* EventBus
    const runId = uuidV7()
    const received: Array<string> = []
    const follower = yield* Effect.fork(
      Stream.runForEach(Stream.unwrap(Effect.map(feeds.after(runId, 0), Option.getOrElse(() => Stream.empty))), (bytes) =>
        Effect.sync(() => void received.push(text(bytes))))
    )
    yield* settle
    assert.deepStrictEqual(received, [": keep-alive\n\n"])
    events.stored.push({ seq: 1, type: "step_started", payload: { node_id: "a" } })
    events.state.failing = 2
    yield* bus.publish(runChannel(runId), "more")
    yield* settle
    yield* clock.adjust("1 second")
    yield* settle
    assert.strictEqual(events.state.failed, 2, "two reads failed")
    assert.strictEqual(received.length, 1)
    yield* clock.adjust("1 second")
    yield* settle
    assert.include(received.at(-1), "id: 1\n", "the next tick's read delivered the event")
    events.stored.push({ seq: 2, type: "run_completed", payload: { status: "completed" } })
    yield* bus.publish(runChannel(runId), "more")
    yield* settle
    assert.include(received.at(-1), "id: 2\n")
    yield* Fiber.join(follower)
  })
