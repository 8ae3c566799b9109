import { Singleton } from "@effect/cluster"
import { SqlClient } from "@effect/sql"
import { Effect, Metric, Schedule, Schema } from "effect"
import { runsRecovered } from "../../otel/Metrics.js"
import { decodeRows } from "../../platform/Rows.js"
import { ActiveRuns } from "./ActiveRuns.js"
import { RunModule } from "./RunModule.js"

/** How long a run may go without news before the sweep hands it over again. */
const STALE_SECONDS = 5
const BATCH = 2000
const MAX_PAGES = 10

const pageRows = decodeRows("runs", Schema.Struct({ id: Schema.String, at: Schema.String }))

/**
 * Hands over the unfinished runs quiet for `staleSeconds` (not held, not waiting dormant for an
 * answer), oldest first, except those `active` here, a page of `pageSize` at a time (keyset on
 * `updated_at, id`, at most `maxPages`): thousands waiting in their tenants' lines here must not
 * hide a lost run behind them. How many it handed over.
 */
export const handOverQuiet = (options: {
  readonly staleSeconds: number
  readonly active: (runId: string) => boolean
  readonly send: (ids: ReadonlyArray<{ readonly id: string }>) => Effect.Effect<void>
  readonly pageSize: number
  readonly maxPages: number
}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    let after: { readonly at: string; readonly id: string } | undefined
    let handed = 0
    for (let page = 0; page < options.maxPages; page++) {
      const rows = yield* sql`SELECT id, updated_at::text AS at FROM runs WHERE status IN ('pending', 'running') AND NOT held AND NOT dormant
        AND updated_at <= now() - make_interval(secs => ${options.staleSeconds})
        ${after === undefined ? sql`` : sql`AND (updated_at, id) > (${after.at}::timestamptz, ${after.id}::uuid)`}
        ORDER BY updated_at, id LIMIT ${options.pageSize}`.pipe(pageRows)
      const lost = rows.filter(({ id }) => !options.active(id))
      handed += lost.length
      yield* options.send(lost)
      const last = rows.at(-1)
      if (rows.length < options.pageSize || last === undefined) break
      after = last
    }
    return handed
  })

/**
 * Runs nobody carries on are handed to the kernel again, by one process of the cluster (a
 * singleton): at start every unfinished run; then every second runs with a wake-up request not
 * yet seen and timers that are due; every five seconds running or pending runs that have been
 * quiet (their process died), except those active on this process (waiting in their tenant's
 * line, say).
 */
export const RecoveryLive = Singleton.make(
  "run-recovery",
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const modules = yield* RunModule
    const send = (ids: ReadonlyArray<{ id: string }>) => Effect.forEach(ids, ({ id }) => modules.launch(id), { discard: true, concurrency: 16 })

    const woken = sql`SELECT id FROM runs WHERE wake_seq > wake_done
      AND status IN ('pending', 'running', 'paused') AND NOT held LIMIT ${BATCH}`.pipe(decodeRows("runs", Schema.Struct({ id: Schema.String })))
    const dueTimers = sql`
      WITH due AS (
        UPDATE run_waits SET resolution = '{"timeout": true}'::jsonb, resolved_at = now()
        WHERE deadline <= now() AND resolved_at IS NULL RETURNING run_id
      )
      UPDATE runs SET wake_seq = wake_seq + 1, updated_at = now() WHERE id IN (SELECT run_id FROM due) RETURNING id`.pipe(
      decodeRows("run_waits", Schema.Struct({ id: Schema.String }))
    )

    const active = yield* ActiveRuns
    const recover = (reason: "start" | "quiet", staleSeconds: number) =>
      handOverQuiet({ staleSeconds, active: (id) => active.has(id), send, pageSize: BATCH, maxPages: MAX_PAGES }).pipe(
        Effect.tap((handed) => handed > 0 ? Metric.incrementBy(Metric.tagged(runsRecovered, "reason", reason), handed) : Effect.void)
      )

    const started = yield* recover("start", 0).pipe(Effect.orDie)
    if (started > 0) yield* Effect.log(`Handed ${started} unfinished run(s) back to the kernel`)
    const everySecond = Effect.gen(function*() {
      yield* send(yield* dueTimers)
      yield* send(yield* woken)
    }).pipe(Effect.orDie)
    const quiet = recover("quiet", STALE_SECONDS).pipe(Effect.orDie)
    yield* Effect.all([
      everySecond.pipe(Effect.catchAllCause((c) => Effect.logWarning("run recovery sweep failed", c)), Effect.repeat(Schedule.spaced("1 second"))),
      quiet.pipe(Effect.catchAllCause((c) => Effect.logWarning("run recovery sweep failed", c)), Effect.repeat(Schedule.spaced(`${STALE_SECONDS} seconds`)))
    ], { concurrency: 2, discard: true })
  }).pipe(Effect.withTracerEnabled(false))
)
