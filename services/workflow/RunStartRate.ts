import { Effect, Option } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { RateLimiter } from "../../platform/RateLimiter.js"
import { traced } from "../../platform/Traced.js"
import { TooManyRequests } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"

/**
 * A tenant's rate of run starts through the run endpoints (`max_run_starts_per_second` in its
 * settings, set by an env_admin): past it the start is refused with 429 and Retry-After, so a
 * flood costs the platform a refusal rather than a run (TENANT_MAX_RUN_STARTS_PER_SECOND for
 * tenants without their own). Paced, not windowed: up to the limit at once, then one start every
 * 1/limit s, so a flood's admitted starts arrive evenly instead of as a burst at each second's
 * start that every other tenant's runs would queue behind. No limit, no lookup: the setting comes
 * with the caller's principal.
 */
export class RunStartRate extends Effect.Service<RunStartRate>()("RunStartRate", {
  effect: Effect.gen(function*() {
    const limiter = yield* RateLimiter
    const fallback = Option.getOrUndefined((yield* AppConfig).tenantMaxRunStartsPerSecond)
    const check = (principal: Principal) =>
      Effect.gen(function*() {
        const limit = principal.settings.max_run_starts_per_second ?? fallback
        if (limit === undefined) return
        const decision = yield* limiter.pace(`run-starts:${principal.tenantId}`, limit)
        if (decision.allowed) return
        return yield* new TooManyRequests({
          code: "RATE_LIMITED",
          message: `This workspace may start ${limit} runs per second`,
          retry_after_seconds: decision.retryAfterSeconds
        })
      })
    return traced("RunStartRate", { check })
  })
}) {}
