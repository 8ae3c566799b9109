import { Effect, Layer, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../platform/Config.js"
import { EventBus } from "../../platform/EventBus.js"
import { loopLag, RUNNER_LAG_CHANNEL, runnerLagMessage } from "../../platform/LoopLag.js"
import { ActiveRuns } from "./ActiveRuns.js"

const LOOK = "100 millis"

/**
 * A runner process of a split deployment tells the processes that accept run starts when its
 * event loop runs late or nearly so (over half OVERLOAD_LOOP_LAG_MS, where the fair shares stop
 * climbing): every look while it is, and once when it is on time again. Its loop is watched only
 * while it has runs, so an idle runner is not woken for it.
 * In one process (`ROLE=all`) the starts are judged by that process's own loop: nothing is sent.
 */
export const RunnerLoadLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { overloadLoopLagMs, role } = yield* AppConfig
  if (role !== "runners" || overloadLoopLagMs <= 0) return
  const bus = yield* EventBus
  const active = yield* ActiveRuns
  const lag = yield* loopLag
  const source = randomUUID()
  let late = false
  yield* Effect.suspend(() => {
    lag.watch(active.size > 0)
    const mean = lag.take()
    const wasLate = late
    late = mean > overloadLoopLagMs / 2
    return late || wasLate ? bus.publish(RUNNER_LAG_CHANNEL, runnerLagMessage(source, mean)) : Effect.void
  }).pipe(Effect.repeat(Schedule.spaced(LOOK)), Effect.withTracerEnabled(false), Effect.forkScoped)
}))
