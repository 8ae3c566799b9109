import { Clock, Effect } from "effect"

/** How far the span clock may stray from the wall clock before it is set again. */
const MAX_DRIFT_NANOS = 2_000_000n
const CHECK_EVERY_MS = 1000

/**
 * Effect's clock counts from the process's start on the monotonic clock, which drifts from the
 * wall clock (NTP slews it) by milliseconds a minute: in a process that has run for days, span
 * times would no longer line up with the database's timestamps they are read next to (a run's
 * root span ends at its `finished_at`). This clock keeps the monotonic resolution and is set
 * back onto the wall clock, once a second, when the two differ by more than 2 ms (less is the
 * millisecond resolution of `Date.now()`, not drift). Sleeping is Effect's own.
 */
export const makeWallClock = (): Clock.Clock => {
  const base = Clock.make()
  let checkedAt = 0
  let offset = 0n
  const nanos = () => {
    const monotonic = base.unsafeCurrentTimeNanos()
    const now = Date.now()
    if (now - checkedAt >= CHECK_EVERY_MS) {
      checkedAt = now
      const wanted = BigInt(now) * 1_000_000n - monotonic
      const drift = wanted - offset
      if (drift > MAX_DRIFT_NANOS || drift < -MAX_DRIFT_NANOS) offset = wanted
    }
    return monotonic + offset
  }
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => Date.now(),
    currentTimeMillis: Effect.sync(() => Date.now()),
    unsafeCurrentTimeNanos: nanos,
    currentTimeNanos: Effect.sync(nanos),
    sleep: (duration) => base.sleep(duration)
  }
}
