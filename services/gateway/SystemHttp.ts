import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import type pg from "pg"
import { PgPool } from "../../platform/PreparedSql.js"
import { PlatformApi } from "../../schemas/Api.js"
import { ServiceUnavailable } from "../../schemas/Errors.js"

const HEALTH_TIMEOUT_MS = 2000

const unavailable = new ServiceUnavailable({ code: "DATABASE_UNAVAILABLE", message: "The database does not answer" })

/**
 * `GET /health`: one `SELECT 1` answered within 2 s. The limit is a timer around the pool's own
 * callback rather than `Effect.timeout`, which forks a fiber per call: under load balancers'
 * probes that fork and its join were 30% of the route's cost (bench/README.md, Load).
 */
export const SystemHttp = HttpApiBuilder.group(PlatformApi, "system", (handlers) =>
  Effect.gen(function*() {
    const pool = yield* PgPool
    return handlers.handle("health", () =>
      Effect.async<{ readonly status: "ok" }, ServiceUnavailable>((resume) => {
        let done = false
        const finish = (effect: Effect.Effect<{ readonly status: "ok" }, ServiceUnavailable>) => {
          if (done) return
          done = true
          clearTimeout(timer)
          resume(effect)
        }
        const timer = setTimeout(() => finish(Effect.fail(unavailable)), HEALTH_TIMEOUT_MS)
        // pg honours a per-query `query_timeout` (its types do not list it): a stuck probe frees its client.
        pool.query({ text: "SELECT 1", query_timeout: HEALTH_TIMEOUT_MS } as pg.QueryConfig, (error: Error | undefined) =>
          finish(error === undefined || error === null ? Effect.succeed({ status: "ok" as const }) : Effect.fail(unavailable)))
      }))
  }))
