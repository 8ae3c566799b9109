import { Effect, Stream } from "effect"
import { performance } from "node:perf_hooks"
import { EventBus } from "./EventBus.js"

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

/**
 * Where runner processes say how late their loops run, for the processes that accept run starts
 * (a split deployment's gateways), which would otherwise judge by their own loop only.
 */
export const RUNNER_LAG_CHANNEL = "runner-loop-lag"

/** A runner's report: who (unique per process) and its loop's mean lateness (ms) over the last look. */
export const runnerLagMessage = (source: string, lateMs: number) => `${source} ${lateMs.toFixed(1)}`

export const readRunnerLag = (message: string): { readonly source: string; readonly lateMs: number } | undefined => {
  const [source, late] = message.split(" ")
  const lateMs = Number(late)
  return source === undefined || source === "" || !Number.isFinite(lateMs) || lateMs < 0 ? undefined : { source, lateMs }
}

/** A report older than this (three looks missed) no longer counts: its runner is on time or gone. */
const REPORT_TTL_MS = 300

/**
 * The runners' reports, as a process that accepts run starts hears them: `worst()` is the
 * lateness of the latest runner among the fresh reports (0 without any). Stopped with the scope.
 */
export const runnersLag = Effect.gen(function*() {
  const bus = yield* EventBus
  const reports = new Map<string, { readonly lateMs: number; readonly at: number }>()
  yield* bus.subscribe(RUNNER_LAG_CHANNEL).pipe(
    Stream.runForEach((message) =>
      Effect.sync(() => {
        const report = readRunnerLag(message)
        if (report !== undefined) reports.set(report.source, { lateMs: report.lateMs, at: Date.now() })
      })
    ),
    Effect.forkScoped
  )
  const worst = (now: number) => {
    let late = 0
    for (const [source, report] of reports) {
      if (now - report.at > REPORT_TTL_MS) reports.delete(source)
      else late = Math.max(late, report.lateMs)
    }
    return late
  }
  return { worst }
})
