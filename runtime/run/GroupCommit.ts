import type { SqlError } from "@effect/sql/SqlError"
import { Deferred, Effect, Metric, Queue } from "effect"
import { journalGroupFallbacks, journalGroupSize, record } from "../../otel/Metrics.js"

interface Pending<Entry, Row> {
  readonly entry: Entry
  readonly done: Deferred.Deferred<Row>
}

export interface GroupCommitOptions<Entry, Row> {
  /** Writes one entry as its own statement (the path of a run alone, and of an entry whose group failed). */
  readonly one: (entry: Entry) => Effect.Effect<Row, SqlError>
  /** Writes several entries as one statement (one transaction): all of them or none. */
  readonly many: (entries: ReadonlyArray<Entry>) => Effect.Effect<ReadonlyArray<Row>, SqlError>
  /** The runs an entry writes: a group holds no two entries that share one. */
  readonly touches: (entry: Entry) => ReadonlyArray<string>
  /** Entries per statement at most. */
  readonly maxEntries: number
  /** Statements in flight at once. */
  readonly writers: number
  /** The tenant an entry is for: a group's entries are acknowledged those of its least represented tenants first. */
  readonly tenantOf?: (entry: Entry) => string
}

/**
 * The order a written group's entries are acknowledged in: each waiting fiber resumes in that
 * order, and the first to resume sends its next request first. A tenant with one entry among a
 * flood's sixty goes first, instead of after whoever queued before it.
 */
export const acknowledgeOrder = <Entry>(entries: ReadonlyArray<Entry>, tenantOf: ((entry: Entry) => string) | undefined) => {
  const order = entries.map((_, i) => i)
  if (tenantOf === undefined || entries.length < 2) return order
  const tenants = entries.map(tenantOf)
  const counts = new Map<string, number>()
  for (const t of tenants) counts.set(t, (counts.get(t) ?? 0) + 1)
  if (counts.size < 2) return order
  return order.sort((a, b) => (counts.get(tenants[a]) ?? 0) - (counts.get(tenants[b]) ?? 0) || a - b)
}

/**
 * Group commit of the runs' journal commits on this process: each run's commit waits in a queue;
 * a writer takes every commit waiting (up to `maxEntries`) and writes them as one statement, and
 * each run goes on only once that statement has committed. An idle writer takes a lone commit at
 * once, so a run alone waits no longer than before; under load the commits that arrive during a
 * write go together in the next one (no timer: the batch is whatever queued meanwhile). A written
 * group is acknowledged the fewest entries of a tenant first (`acknowledgeOrder`).
 *
 * One statement never touches a run twice (its own commit, or a wake-up of it by another run's):
 * data-modifying CTEs on one row in one statement would lose all but one, so such a commit waits
 * for the next statement. If a group's statement fails (one entry's constraint), each entry is
 * written alone, so only the faulty one fails.
 */
export const makeGroupCommit = <Entry, Row>(options: GroupCommitOptions<Entry, Row>) =>
  Effect.gen(function*() {
    type Waiting = Pending<Entry, Row>
    const queue = yield* Queue.unbounded<Waiting>()
    const carried: Array<Waiting> = []

    const alone = (pending: Waiting) => options.one(pending.entry).pipe(Effect.orDie, Effect.exit, Effect.flatMap((exit) => Deferred.done(pending.done, exit)))

    const write = (group: ReadonlyArray<Waiting>) =>
      (group.length === 1 ? alone(group[0]) : options.many(group.map((p) => p.entry)).pipe(
        Effect.matchEffect({
          onSuccess: (rows) =>
            Effect.forEach(acknowledgeOrder(group.map((p) => p.entry), options.tenantOf), (i) => Deferred.succeed(group[i].done, rows[i]), {
              discard: true
            }),
          onFailure: () => Effect.zipRight(Metric.increment(journalGroupFallbacks), Effect.forEach(group, alone, { discard: true }))
        })
      )).pipe(
        Effect.zipLeft(record(journalGroupSize, group.length)),
        Effect.catchAllCause((cause) => Effect.forEach(group, (p) => Deferred.failCause(p.done, cause), { discard: true })),
        Effect.uninterruptible
      )

    /** The next group: commits carried over first, then what queued, none touching a run another one does. */
    const nextGroup = Effect.gen(function*() {
      const fresh = carried.length > 0 ? yield* Queue.takeUpTo(queue, options.maxEntries) : yield* Queue.takeBetween(queue, 1, options.maxEntries)
      const candidates = [...carried.splice(0), ...fresh]
      const group: Array<Waiting> = []
      const touched = new Set<string>()
      for (const pending of candidates) {
        const runs = options.touches(pending.entry)
        if (group.length >= options.maxEntries || runs.some((id) => touched.has(id))) {
          carried.push(pending)
          continue
        }
        for (const id of runs) touched.add(id)
        group.push(pending)
      }
      return group
    })

    // Writers share the queue; taking a group is one at a time, so each commit is in one group only.
    const taking = yield* Effect.makeSemaphore(1)
    for (let i = 0; i < options.writers; i++) {
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(taking.withPermits(1)(nextGroup), write)))
    }
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Queue.takeAll(queue), (left) => Effect.forEach([...carried.splice(0), ...left], (p) => Deferred.interrupt(p.done), { discard: true }))
    )

    return (entry: Entry) => Effect.flatMap(Deferred.make<Row>(), (done) => Effect.zipRight(Queue.offer(queue, { entry, done }), Deferred.await(done)))
  })
