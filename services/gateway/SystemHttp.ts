import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import type pg from "pg"
import { AppConfig } from "../../platform/Config.js"
import { PgPool } from "../../platform/PreparedSql.js"
import { RunPlacement } from "../../runtime/run/Placement.js"
import { PlatformApi } from "../../schemas/Api.js"
import { ServiceUnavailable } from "../../schemas/Errors.js"

const PROBE_TIMEOUT_MS = 2000

const databaseDown = new ServiceUnavailable({ code: "DATABASE_UNAVAILABLE", message: "The database does not answer", retry_after_seconds: 5 })

/**
 * `GET /health` is liveness: the process serves (it only serves once migrated). `GET /ready` is
 * readiness: one `SELECT 1` answered within 2 s, and runners to place runs on where this process
 * sends runs to them. The probe's limit is a timer around the pool's own callback rather than
 * `Effect.timeout`, which forks a fiber per call (bench/README.md, Load).
 */
export const SystemHttp = HttpApiBuilder.group(PlatformApi, "system", (handlers) =>
  Effect.gen(function*() {
    const pool = yield* PgPool
    const placement = yield* RunPlacement
    const { role, runnerLeaseSeconds } = yield* AppConfig
    const database: Effect.Effect<void, ServiceUnavailable> = Effect.async<void, ServiceUnavailable>((resume) => {
      let done = false
      const finish = (effect: Effect.Effect<void, ServiceUnavailable>) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resume(effect)
      }
      const timer = setTimeout(() => finish(Effect.fail(databaseDown)), PROBE_TIMEOUT_MS)
      // pg honours a per-query `query_timeout` (its types do not list it): a stuck probe frees its client.
      pool.query({ text: "SELECT 1", query_timeout: PROBE_TIMEOUT_MS } as pg.QueryConfig, (error: Error | undefined) =>
        finish(error === undefined || error === null ? Effect.void : Effect.fail(databaseDown)))
    })
    const runners = placement.runners.pipe(
      Effect.catchAll(() =>
        Effect.fail(databaseDown)
      ),
      Effect.filterOrFail((n) => n === undefined || n > 0, () =>
        new ServiceUnavailable({
          code: "NO_RUNNERS",
          message: "No runner process owns shards: runs sent from here could not start",
          retry_after_seconds: Math.max(1, Math.ceil(runnerLeaseSeconds / 3))
        }))
    )
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        database.pipe(
          Effect.zipRight(runners),
          Effect.map((n) => ({
            status: "ready" as const,
            role,
            checks: { database: "ok" as const, migrations: "ok" as const, ...(n === undefined ? {} : { runners: n }) }
          }))
        ))
  }))
