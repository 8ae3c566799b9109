import { Effect } from "effect"
import { performance } from "node:perf_hooks"

const TICK_MS = 10

/**
 * How late this process's event loop runs: a 10 ms timer's lateness, averaged since the last
 * `take` (ms). Whatever waits on the loop (a request's next step, a run's next node) waits about
 * that long at each turn, so it is the process's own measure of being overloaded, whatever loads
 * it. The timer runs only while `watch(true)`: an idle process is not woken a hundred times a
 * second for nothing. Stopped with the scope.
 */
export const loopLag = Effect.gen(function*() {
  let late = 0
  let ticks = 0
  let last = performance.now()
  let timer: ReturnType<typeof setInterval> | undefined
  const watch = (on: boolean) => {
    if (on && timer === undefined) {
      last = performance.now()
      late = 0
      ticks = 0
      timer = setInterval(() => {
        const now = performance.now()
        late += Math.max(0, now - last - TICK_MS)
        ticks += 1
        last = now
      }, TICK_MS).unref()
    } else if (!on && timer !== undefined) {
      clearInterval(timer)
      timer = undefined
    }
  }
  yield* Effect.addFinalizer(() => Effect.sync(() => watch(false)))
  /** The mean lateness since the last take (0 while not watching); a loop so busy that no tick ran counts the time since the last one. */
  const take = () => {
    if (timer === undefined) return 0
    const mean = ticks === 0 ? Math.max(0, performance.now() - last - TICK_MS) : late / ticks
    late = 0
    ticks = 0
    return mean
  }
  return { take, watch }
})
