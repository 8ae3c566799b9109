import { SqlClient, type SqlError } from "@effect/sql"
import { Data, Effect } from "effect"
import { AppConfig } from "../../platform/Config.js"

/** No runner process holds shards: a run created now would stay pending (503 NO_RUNNERS, a defect the gateway answers). */
export class NoRunners extends Data.TaggedError("NoRunners")<{ readonly retryAfterSeconds: number }> {}

/**
 * Whether runs can be placed. A process that runs them itself (`ROLE=all` or `runners`) always
 * can; a gateway or services process needs a live runner (its heartbeat and a shard lease within
 * `RUNNER_LEASE_SECONDS`). Looked up at most once a second.
 */
export class RunPlacement extends Effect.Service<RunPlacement>()("RunPlacement", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { role, runnerLeaseSeconds } = yield* AppConfig
    const local = role === "all" || role === "runners"
    // Hot path, typed by assertion (not decoded): read on every run start (bench/README "Durable runs").
    const lookup = sql<{ runners: number }>`SELECT count(DISTINCT l.address)::int AS runners FROM cluster_locks l
      JOIN cluster_runners r ON r.address = l.address
      WHERE l.acquired_at >= now() - make_interval(secs => ${runnerLeaseSeconds})
        AND r.last_heartbeat >= now() - make_interval(secs => ${runnerLeaseSeconds})`.pipe(
      Effect.map((rows) => rows[0]?.runners ?? 0),
      Effect.withTracerEnabled(false)
    )
    const cached = yield* Effect.cachedWithTTL(lookup, "1 second")
    /** How many runners own shards now; undefined where this process runs runs itself. */
    const runners: Effect.Effect<number | undefined, SqlError.SqlError> = local ? Effect.succeed(undefined) : lookup
    /** Dies with NoRunners when nobody would run a run created now. */
    const check = local ?
      Effect.void :
      Effect.flatMap(
        Effect.orDie(cached),
        (n) => n > 0 ? Effect.void : Effect.die(new NoRunners({ retryAfterSeconds: Math.max(1, Math.ceil(runnerLeaseSeconds / 3)) }))
      )
    return { runners, check }
  })
}) {}
