import { Singleton } from "@effect/cluster"
import { SqlClient } from "@effect/sql"
import { Effect, Schedule, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { RunModule } from "./RunModule.js"

/** How long a run may go without news before the sweep hands it over again. */
const STALE_SECONDS = 5
const BATCH = 2000

/**
 * Runs nobody carries on are handed to the kernel again, by one process of the cluster (a
 * singleton): at start every unfinished run; then every second runs with a wake-up request not
 * yet seen and timers that are due; every five seconds running or pending runs that have been
 * quiet (their process died; sending to a run that is active is a no-op).
 */
export const RecoveryLive = Singleton.make(
  "run-recovery",
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const modules = yield* RunModule
    const send = (ids: ReadonlyArray<{ id: string }>) => Effect.forEach(ids, ({ id }) => modules.launch(id), { discard: true, concurrency: 16 })

    const unfinished = (staleSeconds: number) =>
      sql`SELECT id FROM runs WHERE status IN ('pending', 'running') AND NOT held AND NOT dormant
        AND updated_at <= now() - make_interval(secs => ${staleSeconds}) ORDER BY updated_at LIMIT ${BATCH}`.pipe(
        decodeRows("runs", Schema.Struct({ id: Schema.String }))
      )
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

    const started = yield* unfinished(0).pipe(Effect.orDie)
    yield* send(started)
    if (started.length > 0) yield* Effect.log(`Handed ${started.length} unfinished run(s) back to the kernel`)
    const everySecond = Effect.gen(function*() {
      yield* send(yield* dueTimers)
      yield* send(yield* woken)
    }).pipe(Effect.orDie)
    const quiet = unfinished(STALE_SECONDS).pipe(Effect.orDie, Effect.flatMap(send))
    yield* Effect.all([
      everySecond.pipe(Effect.catchAllCause((c) => Effect.logWarning("run recovery sweep failed", c)), Effect.repeat(Schedule.spaced("1 second"))),
      quiet.pipe(Effect.catchAllCause((c) => Effect.logWarning("run recovery sweep failed", c)), Effect.repeat(Schedule.spaced(`${STALE_SECONDS} seconds`)))
    ], { concurrency: 2, discard: true })
  }).pipe(Effect.withTracerEnabled(false))
)
