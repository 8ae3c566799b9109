import { Effect } from "effect"
import { postgresCpuMs, selfCpuMs } from "./Cpu.js"
import type { makePgTrace } from "./PgTrace.js"

/**
 * The concurrent phase of a runs benchmark: `warmup` runs, their end, a pause past the cluster
 * reaper's next pass (every 5 s, so that the warm-up's entities are gone), then `runs` runs with
 * `concurrency` starts in flight, measured from the first start to the last run's end.
 */
export const concurrentRuns = <E, R>(options: {
  readonly start: Effect.Effect<string, E, R>
  readonly unfinished: Effect.Effect<number, E, R>
  readonly trace: ReturnType<typeof makePgTrace>
  readonly warmup: number
  readonly runs: number
  readonly concurrency: number
}) =>
  Effect.gen(function*() {
    const { concurrency, start, trace, unfinished } = options
    const drain = Effect.gen(function*() {
      while ((yield* unfinished) > 0) yield* Effect.sleep("20 millis")
    })
    yield* Effect.forEach(Array.from({ length: options.warmup }), () => start, { concurrency, discard: true })
    yield* drain
    yield* Effect.sleep("7 seconds")
    const pg0 = postgresCpuMs()
    const self0 = selfCpuMs()
    trace.start()
    const t0 = performance.now()
    const ids = yield* Effect.forEach(Array.from({ length: options.runs }), () => start, { concurrency })
    yield* drain
    const wall = (performance.now() - t0) / 1000
    const statements = trace.stop()
    return { ids, wall, statements, nodeCpu: selfCpuMs() - self0, pgCpu: postgresCpuMs() - pg0 }
  })
