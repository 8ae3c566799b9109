import { Effect } from "effect"
import { performance } from "node:perf_hooks"

const TICK_MS = 10

/**
 * How late this process's event loop runs: a 10 ms timer's lateness, averaged since the last
 * `take` (ms), for as long as the scope lives. Whatever waits on the loop (a request's next step,
 * a run's next node) waits about that long at each turn, so it is the process's own measure of
 * being overloaded, whatever loads it.
 */
export const loopLag = Effect.gen(function*() {
  let late = 0
  let ticks = 0
  let last = performance.now()
  yield* Effect.acquireRelease(
    Effect.sync(() =>
      setInterval(() => {
        const now = performance.now()
        late += Math.max(0, now - last - TICK_MS)
        ticks += 1
        last = now
      }, TICK_MS).unref()
    ),
    (timer) => Effect.sync(() => clearInterval(timer))
  )
  /** The mean lateness since the last take; a loop so busy that no tick ran counts the time since the last one. */
  const take = () => {
    const mean = ticks === 0 ? Math.max(0, performance.now() - last - TICK_MS) : late / ticks
    late = 0
    ticks = 0
    return mean
  }
  return { take }
})
