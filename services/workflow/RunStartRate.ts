import { Effect, Metric, Option, Schedule } from "effect"
import { runStartsRefused, runStartsSharedRate } from "../../otel/Metrics.js"
import { AppConfig } from "../../platform/Config.js"
import { loopLag } from "../../platform/LoopLag.js"
import { RateLimiter } from "../../platform/RateLimiter.js"
import { traced } from "../../platform/Traced.js"
import { TooManyRequests } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { defaultShareSettings, makeStartShare } from "./StartShare.js"

const TICK = "100 millis"

/**
 * A tenant's rate of run starts through the run endpoints. Its own (`max_run_starts_per_second` in
 * its settings, set by an env_admin; TENANT_MAX_RUN_STARTS_PER_SECOND for tenants without one):
 * past it the start is refused with 429 and Retry-After, so a flood costs the platform a refusal
 * rather than a run. Paced, not windowed: up to the limit at once, then one start every 1/limit s,
 * so a flood's admitted starts arrive evenly instead of as a burst at each second's start that
 * every other tenant's runs would queue behind. No limit, no lookup: the setting comes with the
 * caller's principal.
 *
 * And its fair share while this process is overloaded (its event loop later than
 * OVERLOAD_LOOP_LAG_MS) and other tenants start runs too (`StartShare`): paced in this process,
 * since the overload is this process's own.
 */
export class RunStartRate extends Effect.Service<RunStartRate>()("RunStartRate", {
  scoped: Effect.gen(function*() {
    const limiter = yield* RateLimiter
    const config = yield* AppConfig
    const fallback = Option.getOrUndefined(config.tenantMaxRunStartsPerSecond)
    const share = config.overloadLoopLagMs > 0 ? makeStartShare(defaultShareSettings(config.overloadLoopLagMs)) : undefined
    if (share !== undefined) {
      const lag = yield* loopLag
      yield* Effect.suspend(() => {
        share.tick(lag.take(), Date.now())
        lag.watch(share.contended())
        return Metric.set(runStartsSharedRate, share.rate() ?? 0)
      }).pipe(Effect.repeat(Schedule.spaced(TICK)), Effect.withTracerEnabled(false), Effect.forkScoped)
    }
    const refuse = (reason: "rate" | "busy", message: string, retryAfterSeconds: number) =>
      Effect.zipRight(
        Metric.increment(runStartsRefused(["reason", reason])),
        new TooManyRequests({ code: "RATE_LIMITED", message, retry_after_seconds: retryAfterSeconds })
      )
    const check = (principal: Principal) =>
      Effect.gen(function*() {
        const limit = principal.settings.max_run_starts_per_second ?? fallback
        if (limit !== undefined) {
          const decision = yield* limiter.pace(`run-starts:${principal.tenantId}`, limit)
          if (!decision.allowed) {
            return yield* refuse("rate", `This workspace may start ${limit} run${limit === 1 ? "" : "s"} a second`, decision.retryAfterSeconds)
          }
        }
        if (share === undefined) {
          return
        }
        const decision = share.admit(principal.tenantId, Date.now())
        if (decision.allowed) return
        return yield* refuse(
          "busy",
          `The platform is busy: while other workspaces start runs too, each may start ${Math.floor(share.rate() ?? 0)} a second`,
          decision.retryAfterSeconds
        )
      })
    return traced("RunStartRate", { check })
  })
}) {}
