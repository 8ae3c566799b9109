import { SqlClient } from "@effect/sql"
import { Effect, Metric, Option, Schedule, Schema } from "effect"
import { runnersLoopLag, runStartsRefused, runStartsSharedRate } from "../../otel/Metrics.js"
import { AppConfig } from "../../platform/Config.js"
import { loopLag, runnersLag } from "../../platform/LoopLag.js"
import { RateLimiter } from "../../platform/RateLimiter.js"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { makeTtlCache } from "../../platform/TtlCache.js"
import { TooManyRequests } from "../../schemas/Errors.js"
import type { TenantId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { defaultShareSettings, makeStartShare } from "./StartShare.js"

const TICK = "100 millis"
const SETTING_TTL_MS = 5_000

/**
 * A tenant's rate of run starts: at a caller's request (the run endpoints, chat messages, document
 * generation, feedback workflows) and without one (webhook deliveries, public app runs, whose
 * visitors together get half of it). Its own
 * (`max_run_starts_per_second` in its settings, set by an env_admin; TENANT_MAX_RUN_STARTS_PER_SECOND
 * for tenants without one): past it the start is refused with 429 and Retry-After, so a flood costs
 * the platform a refusal rather than a run. Paced, not windowed: up to the limit at once, then one
 * start every 1/limit s, so a flood's admitted starts arrive evenly instead of as a burst at each
 * second's start that every other tenant's runs would queue behind.
 *
 * And its fair share while this process is overloaded (its event loop later than
 * OVERLOAD_LOOP_LAG_MS) and other tenants start runs too (`StartShare`): paced in this process,
 * since the overload is this process's own.
 */
export class RunStartRate extends Effect.Service<RunStartRate>()("RunStartRate", {
  scoped: Effect.gen(function*() {
    const limiter = yield* RateLimiter
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    const fallback = Option.getOrUndefined(config.tenantMaxRunStartsPerSecond)
    const share = config.overloadLoopLagMs > 0 ? makeStartShare(defaultShareSettings(config.overloadLoopLagMs)) : undefined
    if (share !== undefined) {
      const lag = yield* loopLag
      // A split deployment's gateway starts runs that runner processes run: it is overloaded when
      // they are, and they say so (RunnerLoad). In one process, that process's loop is the runners'.
      const runners = config.role === "gateway" || config.role === "services" ? yield* runnersLag : undefined
      yield* Effect.suspend(() => {
        const now = Date.now()
        const remote = runners?.worst(now) ?? 0
        share.tick(Math.max(lag.take(), remote), now)
        lag.watch(share.contended())
        return Effect.zipRight(
          Metric.set(runStartsSharedRate, share.rate() ?? 0),
          runners === undefined ? Effect.void : Metric.set(runnersLoopLag, remote)
        )
      }).pipe(Effect.repeat(Schedule.spaced(TICK)), Effect.withTracerEnabled(false), Effect.forkScoped)
    }
    const refuse = (reason: "rate" | "busy", message: string, retryAfterSeconds: number) =>
      Effect.zipRight(
        Metric.increment(runStartsRefused(["reason", reason])),
        new TooManyRequests({ code: "RATE_LIMITED", message, retry_after_seconds: retryAfterSeconds })
      )
    const admit = (tenantId: string, limit: number | undefined) =>
      Effect.gen(function*() {
        if (limit !== undefined) {
          const decision = yield* limiter.pace(`run-starts:${tenantId}`, limit)
          if (!decision.allowed) {
            return yield* refuse("rate", `This workspace may start ${limit} run${limit === 1 ? "" : "s"} a second`, decision.retryAfterSeconds)
          }
        }
        if (share === undefined) return
        const decision = share.admit(tenantId, Date.now())
        if (decision.allowed) return
        return yield* refuse(
          "busy",
          `The platform is busy: while other workspaces start runs too, each may start ${Math.floor(share.rate() ?? 0)} a second`,
          decision.retryAfterSeconds
        )
      })

    // Starts without a caller (a webhook's delivery, a public app's visitor) name only their
    // tenant: its setting is read, and kept a few seconds.
    const settings = makeTtlCache<number | undefined>({ ttlMs: SETTING_TTL_MS, capacity: 10_000 })
    const limitOf = (tenantId: string) =>
      settings.get(
        tenantId,
        sql`SELECT (settings->>'max_run_starts_per_second')::int AS max FROM tenants WHERE id = ${tenantId}`.pipe(
          decodeRows("tenants", Schema.Struct({ max: Schema.NullOr(Schema.Number) })),
          Effect.map((rows) => rows[0]?.max ?? fallback)
        )
      ).pipe(Effect.orElseSucceed(() => fallback))

    /** A start at a caller's request: the caller's principal carries its tenant's setting. */
    const check = (principal: Principal) => admit(principal.tenantId, principal.settings.max_run_starts_per_second ?? fallback)
    /** A start for a tenant without a caller of it. */
    const checkTenant = (tenantId: TenantId) => Effect.flatMap(limitOf(tenantId), (limit) => admit(tenantId, limit))
    /**
     * A public app's visitor: no credential, so visitors from many addresses could use up the
     * tenant's whole rate. Together they get half of it (at least one a second); the tenant's
     * own starts keep the rest.
     */
    const checkVisitor = (tenantId: TenantId) =>
      Effect.flatMap(limitOf(tenantId), (limit) =>
        Effect.gen(function*() {
          if (limit !== undefined) {
            const visitors = Math.max(1, Math.floor(limit / 2))
            const decision = yield* limiter.pace(`run-starts-visitors:${tenantId}`, visitors)
            if (!decision.allowed) {
              return yield* refuse(
                "rate",
                `This workspace's public apps may start ${visitors} run${visitors === 1 ? "" : "s"} a second between all their visitors`,
                decision.retryAfterSeconds
              )
            }
          }
          return yield* admit(tenantId, limit)
        }))
    return traced("RunStartRate", { check, checkTenant, checkVisitor })
  })
}) {}
