import { Effect, Fiber, Option, PubSub, type Scope, Stream } from "effect"
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

interface Feed {
  readonly hub: PubSub.PubSub<FeedBatch>
  readonly reader: Fiber.RuntimeFiber<void>
  followers: number
}

/**
 * One reader of a run's journal per process, shared by every follower of that run here: on each
 * notification (or every second) it reads the events after the last it read, once, and hands the
 * batch to all followers. Without it every open stream read the table on every notification, so
 * a run with many followers cost that many queries per node.
 */
export class RunFeeds extends Effect.Service<RunFeeds>()("RunFeeds", {
  effect: Effect.gen(function*() {
    const events = yield* RunEvents
    const bus = yield* EventBus
    const feeds = new Map<string, Feed>()

    const read = (runId: string, from: number, hub: PubSub.PubSub<FeedBatch>) =>
      Stream.make(undefined).pipe(
        Stream.concat(Stream.merge(bus.subscribe(runChannel(runId)), Stream.tick("1 second"))),
        Stream.runFoldEffect(from, (position, _trigger) =>
          Effect.flatMap(events.after(runId, position), (batch) => {
            if (batch.length === 0) return Effect.succeed(position)
            const feed = batchOf(runId, batch)
            const warn = feed.unreadable.length === 0
              ? Effect.void
              : Effect.logWarning(`Run ${runId}: events not described by RunStreamEvent, sent as stored: ${feed.unreadable.join(", ")}`)
            return warn.pipe(Effect.zipRight(PubSub.publish(hub, feed)), Effect.as(batch.at(-1)!.seq))
          })),
        Effect.asVoid
      )

    /** The run's feed, for as long as the scope lasts; the first follower starts it at `from`. */
    const join = (runId: string, from: number): Effect.Effect<PubSub.PubSub<FeedBatch>, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.gen(function*() {
          const known = feeds.get(runId)
          if (known !== undefined) {
            known.followers++
            return known
          }
          const hub = yield* PubSub.unbounded<FeedBatch>()
          // Forked from acquire, which is uninterruptible: the reader must not inherit that.
          const feed: Feed = {
            hub,
            reader: yield* Effect.forkDaemon(Effect.interruptible(read(runId, from, hub)).pipe(Effect.withTracerEnabled(false))),
            followers: 1
          }
          feeds.set(runId, feed)
          return feed
        }),
        (feed) =>
          Effect.suspend(() => {
            feed.followers--
            if (feed.followers > 0) return Effect.void
            feeds.delete(runId)
            return Effect.zipRight(Fiber.interrupt(feed.reader), PubSub.shutdown(feed.hub))
          })
      ).pipe(Effect.map((feed) => feed.hub))

    /**
     * Every event of the run after `lastEventId`, once and in order, as SSE text, up to its last
     * event: the caller subscribes to the run's feed first, then reads what came before from the
     * table, then takes from the feed only what is newer than that, so nothing falls between the two.
     */
    const after = (runId: string, lastEventId: number): Stream.Stream<FeedBatch> =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const hub = yield* join(runId, lastEventId)
        const live = yield* PubSub.subscribe(hub)
        const backlog = yield* events.after(runId, lastEventId)
        let last = backlog.at(-1)?.seq ?? lastEventId
        const newer = (batch: FeedBatch): Option.Option<FeedBatch> => {
          if (batch.last <= last) return Option.none()
          const fresh = batch.events[0].seq > last ? batch : batchOf(runId, batch.events.filter((e) => e.seq > last))
          last = fresh.last
          return Option.some(fresh)
        }
        return Stream.fromIterable(backlog.length > 0 ? [batchOf(runId, backlog)] : []).pipe(
          Stream.concat(Stream.fromQueue(live).pipe(Stream.filterMap(newer))),
          Stream.takeUntil((batch) => batch.final)
        )
      }))

    return traced("RunFeeds", { after })
  })
}) {}
