import { Duration, Effect } from "effect"

/**
 * The pause of a background loop that polls the database for work arriving on other processes
 * (and for leases that ran out). After a round that found nothing it waits `first`, then twice as
 * long after each further empty round, up to `ceiling`; a round that found work starts it again
 * from `first`. A wake (work that arrived on this process) ends a pause at once. An idle process
 * so asks the database a couple of times a second in all instead of ten (bench/README.md, "What an
 * idle platform costs"); work started on another process waits at most `ceiling`.
 */
export const makeIdlePause = (first: Duration.DurationInput, ceiling: Duration.DurationInput) => {
  const start = Duration.decode(first)
  const max = Duration.decode(ceiling)
  let next = start
  return {
    /** The round found work: the next empty round waits `first`. */
    worked: Effect.sync(() => {
      next = start
    }),
    /** The round found nothing: waits the current pause (at most `cap`) or until `wake`, and lengthens the next one. */
    idle: <A, E, R>(wake: Effect.Effect<A, E, R>, cap?: Duration.Duration) =>
      Effect.suspend(() => {
        const wait = cap === undefined ? next : Duration.min(next, cap)
        next = Duration.min(Duration.times(next, 2), max)
        return Effect.raceFirst(Effect.sleep(wait), Effect.asVoid(wake))
      }),
    /** The pause the next empty round would wait. */
    current: Effect.sync(() => next)
  }
}
