import { Effect, Fiber, Option, Queue, type Scope, Stream } from "effect"
import { Draining } from "../../platform/Draining.js"
import { EventBus } from "../../platform/EventBus.js"
import { traced } from "../../platform/Traced.js"
import { eventJson, runChannel, RunEvents, type StoredEvent } from "../../runtime/run/RunEvents.js"
import { isFinalEvent } from "../../schemas/RunLifecycle.js"

const encoder = new TextEncoder()

/** Events read together, with their Server-Sent Events text encoded once for every follower. */
export interface FeedBatch {
  readonly events: ReadonlyArray<StoredEvent>
  readonly last: number
  /** The run's last event is in it: the stream ends after it. */
  readonly final: boolean
  readonly bytes: Uint8Array
  /** Events the lifecycle module's union does not describe (sent as stored). */
  readonly unreadable: ReadonlyArray<string>
}

const batchOf = (runId: string, events: ReadonlyArray<StoredEvent>): FeedBatch => {
  const end = events.findIndex((e) => isFinalEvent(e.type))
  const kept = end === -1 ? events : events.slice(0, end + 1)
  const encoded = kept.map((e) => ({ e, ...eventJson(runId, e) }))
  return {
    events: kept,
    last: kept.at(-1)?.seq ?? 0,
    final: end !== -1,
    bytes: encoder.encode(encoded.map(({ e, json }) => `id: ${e.seq}\ndata: ${JSON.stringify(json)}\n\n`).join("")),
    unreadable: encoded.filter((x) => !x.contract).map(({ e }) => `${e.seq} ${e.type}`)
  }
}

const KEEP_ALIVE = encoder.encode(": keep-alive\n\n")
const KEEP_ALIVE_EVERY = "15 seconds"
const LINGER = "5 seconds"

/** What a follower's queue carries: the run's events, or a comment that keeps the connection open. */
type Delivery = FeedBatch | "keep-alive"
type Follower = Queue.Queue<Delivery>

interface Feed {
  readonly reader: Fiber.RuntimeFiber<void>
  readonly followers: Set<Follower>
}

/**
 * One reader of a run's journal per process, shared by every follower of that run here: on each
 * notification (or every second) it reads the events after the last it read, once, and hands the
 * batch to all followers. Without it every open stream read the table on every notification, so
 * a run with many followers cost that many queries per node.
 *
 * Each follower is a queue of its own. The keep-alive comments of every open stream come from one
 * loop, and the process's drain ends them all by shutting their queues: merging a timer and the
 * drain into each stream (`Stream.merge`, `Stream.interruptWhen`) cost about a third of a
 * stream's opening and of every batch it sent.
 */
export class RunFeeds extends Effect.Service<RunFeeds>()("RunFeeds", {
  scoped: Effect.gen(function*() {
    const events = yield* RunEvents
    const bus = yield* EventBus
    const draining = yield* Draining
    const feeds = new Map<string, Feed>()
    const open = new Set<Follower>()
    let drained = false

    yield* Effect.forkScoped(
      Effect.sync(() => open.forEach((follower) => void Queue.unsafeOffer(follower, "keep-alive"))).pipe(
        Effect.delay(KEEP_ALIVE_EVERY),
        Effect.forever
      )
    )
    yield* Effect.forkScoped(Effect.zipRight(
      draining.started,
      Effect.suspend(() => {
        drained = true
        return Effect.forEach(open, Queue.shutdown, { discard: true })
      })
    ))

    const read = (runId: string, from: number, followers: ReadonlySet<Follower>) =>
      Stream.make(undefined).pipe(
        Stream.concat(Stream.merge(bus.subscribe(runChannel(runId)), Stream.tick("1 second"))),
        Stream.runFoldEffect(from, (position, _trigger) =>
          // A read that failed (the database away a moment) is tried again on the next tick; the
          // reader must outlive it, or its followers would wait for events that never come.
          Effect.flatMap(Effect.catchAllDefect(events.after(runId, position), () => Effect.succeed([])), (batch) => {
            if (batch.length === 0) return Effect.succeed(position)
            const feed = batchOf(runId, batch)
            followers.forEach((follower) => void Queue.unsafeOffer(follower, feed))
            const warn = feed.unreadable.length === 0
              ? Effect.void
              : Effect.logWarning(`Run ${runId}: events not described by RunStreamEvent, sent as stored: ${feed.unreadable.join(", ")}`)
            return Effect.as(warn, batch.at(-1)!.seq)
          })),
        Effect.asVoid
      )

    // A feed outlives its last follower a little: a client that lost its connection comes back within
    // seconds (EventSource's retry) and finds the reader running instead of starting one again.
    const closeLater = (runId: string, feed: Feed) =>
      Effect.delay(
        Effect.suspend(() => {
          if (feed.followers.size > 0 || feeds.get(runId) !== feed) return Effect.void
          feeds.delete(runId)
          return Fiber.interrupt(feed.reader)
        }),
        LINGER
      )

    /** A follower of the run's feed, for as long as the scope lasts; the first one starts the feed's reader at `from`. */
    const join = (runId: string, from: number): Effect.Effect<Follower, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.gen(function*() {
          const follower = yield* Queue.unbounded<Delivery>()
          open.add(follower)
          // Joined while the drain went by: it ends at once like the others.
          if (drained) yield* Queue.shutdown(follower)
          const known = feeds.get(runId)
          if (known !== undefined) {
            known.followers.add(follower)
            return follower
          }
          const followers = new Set([follower])
          // Forked from acquire, which is uninterruptible: the reader must not inherit that.
          const reader = yield* Effect.forkDaemon(Effect.interruptible(read(runId, from, followers)).pipe(Effect.withTracerEnabled(false)))
          feeds.set(runId, { reader, followers })
          return follower
        }),
        (follower) =>
          Effect.suspend(() => {
            open.delete(follower)
            const feed = feeds.get(runId)
            feed?.followers.delete(follower)
            const unfollowed = feed !== undefined && feed.followers.size === 0
            return Effect.zipRight(Queue.shutdown(follower), unfollowed ? Effect.asVoid(Effect.forkDaemon(closeLater(runId, feed))) : Effect.void)
          })
      )

    /**
     * Every event of the run after `lastEventId`, once and in order, as SSE text, up to its last
     * event, with a keep-alive comment at the start and every 15 seconds; it ends early when the
     * process begins to stop (a client resumes elsewhere with Last-Event-ID). What is stored is read
     * first: a run that has ended is answered from it alone, and `None` says that it ended at or
     * before `lastEventId` (nothing more will come). Otherwise the stream joins the run's feed,
     * reads once more what was stored meanwhile, and then takes from the feed only what is newer
     * than that, so nothing falls between the two.
     */
    const after = (runId: string, lastEventId: number): Effect.Effect<Option.Option<Stream.Stream<Uint8Array>>> =>
      Effect.gen(function*() {
        if (drained) return Option.some(Stream.empty)
        const stored = yield* events.after(runId, lastEventId)
        const backlog = stored.length > 0 ? batchOf(runId, stored) : undefined
        if (backlog?.final === true) return Option.some(Stream.make(backlog.bytes))
        if (backlog === undefined && (yield* events.endedBy(runId, lastEventId))) return Option.none()
        return Option.some(live(runId, lastEventId, backlog))
      })

    const live = (runId: string, lastEventId: number, backlog: FeedBatch | undefined): Stream.Stream<Uint8Array> =>
      Stream.unwrapScoped(Effect.gen(function*() {
        let last = backlog?.last ?? lastEventId
        const follower = yield* join(runId, last)
        const meanwhile = yield* events.after(runId, last)
        const caught = meanwhile.length > 0 ? batchOf(runId, meanwhile) : undefined
        last = caught?.last ?? last
        const newer = (delivery: Delivery): Option.Option<FeedBatch | Uint8Array> => {
          if (delivery === "keep-alive") return Option.some(KEEP_ALIVE)
          if (delivery.last <= last) return Option.none()
          const fresh = delivery.events[0].seq > last ? delivery : batchOf(runId, delivery.events.filter((e) => e.seq > last))
          last = fresh.last
          return Option.some(fresh)
        }
        const first = [backlog, caught].filter((b) => b !== undefined)
        return Stream.fromIterable<FeedBatch | Uint8Array>(first.length > 0 ? first : [KEEP_ALIVE]).pipe(
          Stream.concat(Stream.fromQueue(follower).pipe(Stream.filterMap(newer))),
          Stream.takeUntil((item) => !(item instanceof Uint8Array) && item.final),
          Stream.map((item) => item instanceof Uint8Array ? item : item.bytes)
        )
      }))

    return traced("RunFeeds", { after })
  })
}) {}
