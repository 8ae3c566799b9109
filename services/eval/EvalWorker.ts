import { SqlClient } from "@effect/sql"
import { Duration, Effect, Either, FiberSet, Layer, Schema } from "effect"
import { keepRunning } from "../../platform/Background.js"
import { AppConfig } from "../../platform/Config.js"
import { makeIdlePause } from "../../platform/IdlePause.js"
import { decodeRows, JsonObjectOf } from "../../platform/Rows.js"
import { RunnableWorkflows } from "../../runtime/run/Ports.js"
import { configRows } from "./Configs.js"
import { EvalRuns } from "./EvalRuns.js"
import { rubricRows } from "./Rubrics.js"
import { asWorkflowConfig, makeScoring, type RowToScore, type ScoringContext } from "./Scoring.js"

const Claimed = Schema.Struct({
  id: Schema.UUID,
  run_id: Schema.UUID,
  row_id: Schema.UUID,
  attempts: Schema.Number,
  inputs: JsonObjectOf<Record<string, unknown>>(),
  expected_output: Schema.NullOr(JsonObjectOf<Record<string, unknown>>()),
  simulator_instructions: Schema.NullOr(Schema.String)
})
const claimedRows = decodeRows("eval_results", Claimed)

const MAX_ATTEMPTS = 3
/** Rows between two refreshes of a running run's statistics (the counters move with every row). */
const AGGREGATE_EVERY = 10
/** How long the claim waits when every slot is busy (a slot frees when a row is recorded). */
const BUSY = Duration.millis(250)

/**
 * Scores eval rows. Every process claims pending rows (and rows whose scorer's lease ran out: it
 * died) with `FOR UPDATE SKIP LOCKED`, at most EVAL_CONCURRENCY at a time, renews the leases of
 * the rows it scores, and records each finished row with the run's counters and aggregates in one
 * transaction, only while the run is still running (a cancelled run takes no more scores). A row
 * once recorded is never claimed again.
 */
export const EvalWorkerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const runnable = yield* RunnableWorkflows
    const runs = yield* EvalRuns
    const scoring = yield* makeScoring
    const fibers = yield* FiberSet.make()
    const inFlight = new Set<string>()
    const lease = `${config.evalLeaseSeconds} seconds`
    const contexts = new Map<string, ScoringContext>()

    const contextOf = (runId: string) =>
      Effect.gen(function*() {
        const cached = contexts.get(runId)
        if (cached !== undefined) return Either.right(cached)
        const [run] = yield* sql`
          SELECT tenant_id, workflow_id, config_id, version, created_by FROM eval_runs WHERE id = ${runId}`.pipe(
          decodeRows(
            "eval_runs",
            Schema.Struct({
              tenant_id: Schema.String,
              workflow_id: Schema.String,
              config_id: Schema.String,
              version: Schema.Number,
              created_by: Schema.NullOr(Schema.String)
            })
          )
        )
        const [cfg] = yield* sql`SELECT * FROM eval_configs WHERE id = ${run.config_id}`.pipe(configRows)
        const [rubric] = yield* sql`SELECT * FROM eval_rubrics WHERE id = ${cfg.rubric_id}`.pipe(rubricRows)
        const [name] = yield* sql`SELECT name FROM workflows WHERE id = ${run.workflow_id}`.pipe(
          decodeRows("workflows", Schema.Struct({ name: Schema.String }))
        )
        const version = yield* runnable.version(run.workflow_id, run.version)
        if (version === undefined) return Either.left(`Version ${run.version} of the AI Employee no longer exists`)
        const ctx: ScoringContext = {
          evalRunId: runId,
          tenantId: run.tenant_id,
          workflowId: run.workflow_id,
          createdBy: run.created_by,
          config: cfg,
          rubric: rubric,
          version: { number: run.version, name: name?.name ?? "", dag: version.dag, config: asWorkflowConfig(version.config) }
        }
        const unusable = yield* scoring.unusable(ctx)
        if (unusable !== undefined) return Either.left(unusable)
        if (contexts.size > 200) contexts.clear()
        contexts.set(runId, ctx)
        return Either.right(ctx)
      })

    /** Statistics of each score field over the run's completed rows (booleans count as 0 and 1). */
    const aggregates = (runId: string) =>
      sql`
        SELECT key, avg(v)::float8 AS mean,
          percentile_cont(0.5) WITHIN GROUP (ORDER BY v)::float8 AS median,
          percentile_cont(0.05) WITHIN GROUP (ORDER BY v)::float8 AS p5,
          percentile_cont(0.95) WITHIN GROUP (ORDER BY v)::float8 AS p95
        FROM (
          SELECT e.key, CASE jsonb_typeof(e.value) WHEN 'number' THEN (e.value::text)::float8
            WHEN 'boolean' THEN CASE WHEN e.value::text = 'true' THEN 1 ELSE 0 END END AS v
          FROM eval_results r, jsonb_each(r.rubric_scores) e WHERE r.run_id = ${runId} AND r.status = 'completed'
        ) s WHERE v IS NOT NULL GROUP BY key ORDER BY key`.pipe(
        decodeRows("eval_results", Schema.Struct({ key: Schema.String, mean: Schema.Number, median: Schema.Number, p5: Schema.Number, p95: Schema.Number }))
      )

    const refreshAggregates = (runId: string, finish: boolean) =>
      Effect.gen(function*() {
        const stats = yield* aggregates(runId)
        const scores = JSON.stringify(Object.fromEntries(stats.map((s) => [s.key, { mean: s.mean, median: s.median, p5: s.p5, p95: s.p95 }])))
        // A run that scored no row failed; one that scored some completed, failed_rows counting the rest.
        yield* sql`UPDATE eval_runs SET aggregate_metrics = jsonb_build_object('rubric_scores', ${scores}::jsonb)
          ${
          finish
            ? sql`, status = CASE WHEN completed_rows = 0 THEN 'failed' ELSE 'completed' END, finished_at = now(),
              error = CASE WHEN completed_rows = 0 THEN 'Every row failed; the first: ' || COALESCE((SELECT error FROM eval_results
                WHERE run_id = ${runId} AND status = 'failed' ORDER BY position LIMIT 1), 'unknown') END`
            : sql``
        } WHERE id = ${runId} AND status = 'running'`
      })

    /**
     * A run none of whose rows can be scored (its pinned version gone, its target node gone, no
     * model for the judge) fails at once: the rows not yet scored fail with its reason.
     */
    const failRun = (runId: string, reason: string) =>
      Effect.zipRight(
        refreshAggregates(runId, false),
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`UPDATE eval_results SET status = 'failed', error = ${reason}, lease_until = NULL
          WHERE run_id = ${runId} AND status IN ('pending', 'running')`
          yield* sql`UPDATE eval_runs SET status = 'failed', error = ${reason}, failed_rows = total_rows - completed_rows, finished_at = now()
          WHERE id = ${runId} AND status IN ('pending', 'running')`
        }))
      )

    const record = (row: typeof Claimed.Type, outcome: {
      status: "completed" | "failed"
      actualOutput?: unknown
      transcript?: unknown
      scores?: unknown
      usage?: unknown
      durationMs: number
      workflowRunId: string | null
      error: string | null
    }) =>
      sql.withTransaction(Effect.gen(function*() {
        const updated = yield* sql`UPDATE eval_results SET status = ${outcome.status}, lease_until = NULL,
          actual_output = ${outcome.actualOutput === undefined ? null : JSON.stringify(outcome.actualOutput ?? null)}::jsonb,
          simulator_transcript = ${outcome.transcript === undefined || outcome.transcript === null ? null : JSON.stringify(outcome.transcript)}::jsonb,
          rubric_scores = ${outcome.scores === undefined ? null : JSON.stringify(outcome.scores)}::jsonb,
          token_usage = ${JSON.stringify(outcome.usage ?? {})}::jsonb, duration_ms = ${outcome.durationMs},
          workflow_run_id = ${outcome.workflowRunId}, error = ${outcome.error}
          WHERE id = ${row.id} AND status = 'running'
            AND EXISTS (SELECT 1 FROM eval_runs e WHERE e.id = ${row.run_id} AND e.status = 'running')
          RETURNING id`
        if (updated.length === 0) return false
        const [counts] = yield* sql`UPDATE eval_runs SET
          completed_rows = completed_rows + ${outcome.status === "completed" ? 1 : 0},
          failed_rows = failed_rows + ${outcome.status === "failed" ? 1 : 0}
          WHERE id = ${row.run_id} RETURNING completed_rows, failed_rows, total_rows`.pipe(
          decodeRows("eval_runs", Schema.Struct({ completed_rows: Schema.Number, failed_rows: Schema.Number, total_rows: Schema.Number }))
        )
        const done = counts.completed_rows + counts.failed_rows >= counts.total_rows
        if (done) yield* refreshAggregates(row.run_id, true)
        return !done && (counts.completed_rows + counts.failed_rows) % AGGREGATE_EVERY === 0
      })).pipe(
        // Between the first row and the last, the statistics follow every AGGREGATE_EVERY rows, outside the row's
        // transaction (the run's row stays unlocked); the last row's transaction computes the final ones.
        Effect.flatMap((refresh) => refresh ? refreshAggregates(row.run_id, false) : Effect.void)
      )

    const scoreOne = (row: typeof Claimed.Type) =>
      Effect.gen(function*() {
        const started = performance.now()
        const elapsed = () => Math.round((performance.now() - started) * 100) / 100
        if (row.attempts > MAX_ATTEMPTS) {
          return yield* record(row, { status: "failed", durationMs: 0, workflowRunId: null, error: `Scoring was interrupted ${MAX_ATTEMPTS} times` })
        }
        const ctx = yield* contextOf(row.run_id)
        if (Either.isLeft(ctx)) return yield* failRun(row.run_id, ctx.left)
        const toScore: RowToScore = {
          resultId: row.id,
          rowId: row.row_id,
          inputs: row.inputs,
          expectedOutput: row.expected_output,
          simulatorInstructions: row.simulator_instructions
        }
        const scored = yield* Effect.either(scoring.score(ctx.right, toScore))
        yield* Either.match(scored, {
          onLeft: (failure) => record(row, { status: "failed", durationMs: elapsed(), workflowRunId: failure.workflowRunId ?? null, error: failure.message }),
          onRight: (s) =>
            record(row, {
              status: "completed",
              actualOutput: s.actualOutput,
              transcript: s.transcript,
              scores: s.rubricScores,
              usage: s.tokenUsage,
              durationMs: elapsed(),
              workflowRunId: s.workflowRunId,
              error: null
            })
        })
      }).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning(`Eval row ${row.id} could not be recorded; it will be scored again`, cause)),
        Effect.ensuring(Effect.sync(() => inFlight.delete(row.id)))
      )

    const claim = (limit: number) =>
      sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql`
          WITH picked AS (
            SELECT r.id FROM eval_results r JOIN eval_runs e ON e.id = r.run_id
            WHERE e.status IN ('pending', 'running')
              AND (r.status = 'pending' OR (r.status = 'running' AND r.lease_until < now()))
            ORDER BY e.created_at, r.position LIMIT ${limit} FOR UPDATE OF r SKIP LOCKED
          )
          UPDATE eval_results r SET status = 'running', lease_until = now() + ${lease}::interval, attempts = r.attempts + 1
          FROM picked, eval_dataset_rows d WHERE r.id = picked.id AND d.id = r.row_id
          RETURNING r.id, r.run_id, r.row_id, r.attempts, d.inputs, d.expected_output, d.simulator_instructions`.pipe(claimedRows)
        const runs = [...new Set(rows.map((r) => r.run_id))]
        if (runs.length > 0) {
          yield* sql`UPDATE eval_runs SET status = 'running', started_at = COALESCE(started_at, now()) WHERE id IN ${sql.in(runs)} AND status = 'pending'`
        }
        return rows
      }))

    const renew = Effect.suspend(() =>
      inFlight.size === 0
        ? Effect.void
        : sql`UPDATE eval_results SET lease_until = now() + ${lease}::interval WHERE id IN ${sql.in([...inFlight])} AND status = 'running'`.pipe(Effect.asVoid)
    )

    const pause = makeIdlePause("250 millis", "2 seconds")
    const round = Effect.gen(function*() {
      const free = config.evalConcurrency - inFlight.size
      const rows = free > 0 ? yield* claim(free) : []
      for (const row of rows) {
        inFlight.add(row.id)
        yield* FiberSet.run(fibers, scoreOne(row).pipe(Effect.withTracerEnabled(true)))
      }
      if (free <= 0) yield* Effect.sleep(BUSY)
      else if (rows.length > 0) yield* pause.worked
      else yield* pause.idle(runs.nextCreated)
    })

    yield* keepRunning("Claiming eval rows", round)
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.zipRight(Effect.sleep(Duration.seconds(Math.max(1, config.evalLeaseSeconds / 3))), renew.pipe(Effect.catchAllCause(() => Effect.void)))
      )
    )
  })
)
