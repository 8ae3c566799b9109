import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Data, Effect, FiberRef, Layer, Metric, Schema } from "effect"
import { runsEnded, runsPaused, runsStarted } from "../../otel/Metrics.js"
import { PreparedSql } from "../../platform/PreparedSql.js"
import { isTerminal, type RunStatus } from "../../schemas/RunLifecycle.js"
import type { Batch } from "./Batch.js"
import { Journaled } from "./RunRecord.js"

const LOAD = `
SELECT to_jsonb(r) - 'event_seq' AS run, r.wake_seq::float8 AS wake_seq,
  (SELECT coalesce(max(seq), 0)::float8 FROM run_events e WHERE e.run_id = r.id) AS last_seq,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'node_id', s.node_id, 'status', s.status, 'output', s.output,
     'error', s.error, 'attempt', s.attempt, 'position', s.position) ORDER BY s.position), '[]'::jsonb)
   FROM run_steps s WHERE s.run_id = r.id) AS steps,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('id', h.id, 'node_id', h.node_id, 'status', h.status, 'response', h.response)), '[]'::jsonb)
   FROM hitl_requests h WHERE h.run_id = r.id) AS hitl,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('id', c.id, 'node_id', c.parent_node_id, 'status', c.status, 'output', c.output,
     'error', c.error)), '[]'::jsonb) FROM runs c WHERE c.parent_run_id = r.id) AS children,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('node_id', w.node_id, 'kind', w.kind, 'key', w.key, 'resolution', w.resolution,
     'resolved', w.resolved_at IS NOT NULL)), '[]'::jsonb) FROM run_waits w WHERE w.run_id = r.id) AS waits
FROM runs r WHERE r.id = $1`

const decode = Schema.decodeUnknown(Journaled)

/**
 * The shard lease a run's commits are made under (runner processes): a commit writes nothing
 * unless this runner still holds the run's shard and its lease has not run out, so a runner that
 * was frozen past its lease, and whose shard another runner took, never writes over the new owner.
 */
export interface CommitFence {
  readonly shardId: string
  readonly address: string
  readonly leaseSeconds: number
}

export const currentFence = FiberRef.unsafeMake<CommitFence | undefined>(undefined)

/** A fenced commit was refused: this runner no longer holds the shard (a defect ending the activation). */
export class ShardLost extends Data.TaggedError("ShardLost")<{ readonly shardId: string; readonly address: string }> {}

/** The run a commit is for (its trigger type labels the run metrics). */
export interface JournalRun {
  readonly id: string
  readonly tenant_id: string
  readonly trigger_type?: string
}

/** Counts a run transition the commit made: started (pending to running), paused, ended. */
const countTransition = (run: JournalRun, update: Batch["runUpdate"], status: RunStatus | null | undefined) => {
  if (update?.to === undefined || status !== update.to) return Effect.void
  const trigger = run.trigger_type ?? "unknown"
  if (status === "running") {
    return update.from?.includes("pending") === true
      ? Metric.update(runsStarted.pipe(Metric.tagged("trigger_type", trigger)), 1)
      : Effect.void
  }
  if (status === "paused") return Metric.update(runsPaused.pipe(Metric.tagged("trigger_type", trigger)), 1)
  if (isTerminal(status)) return Metric.update(runsEnded.pipe(Metric.tagged("trigger_type", trigger), Metric.tagged("status", status)), 1)
  return Effect.void
}

/** The outcome of a commit: the run's status when the commit changed the run row. */
export interface Committed {
  readonly status: RunStatus | undefined
  readonly wakeSeq: number | undefined
  /** HITL requests closed by a cancellation. */
  readonly hitlCancelled: number
}

/**
 * The run's journal in PostgreSQL: one statement loads a run with its checkpoints (steps,
 * HITL requests, child runs, waits, the last event number); one statement commits what a node
 * did (its step row, its events, its spans, the run row): a single
 * commit, so that a node's checkpoint and its events are never apart.
 */
export class Journal extends Context.Tag("Journal")<Journal, {
  readonly load: (runId: string) => Effect.Effect<Journaled | undefined>
  /**
   * Writes `batch` with event numbers from `firstSeq`; returns what the run row became. `guarded`:
   * nothing is written unless the batch's run transition applies (its `from` still holds).
   */
  readonly commit: (
    run: JournalRun,
    batch: Batch,
    firstSeq: number,
    guarded?: boolean
  ) => Effect.Effect<Committed>
  /** Runs `effect` in one transaction with the commits inside it (a run's end and what its followers write). */
  readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>() {
  static readonly layer = Layer.effect(
    Journal,
    Effect.gen(function*() {
      const sql = yield* PreparedSql
      const client = yield* SqlClient.SqlClient

      const load = (runId: string) =>
        sql.query<Record<string, unknown>>(LOAD, [runId]).pipe(
          Effect.flatMap((rows) => rows[0] === undefined ? Effect.succeed(undefined) : decode(rows[0])),
          Effect.orDie
        )

      const commit = (run: JournalRun, batch: Batch, firstSeq: number, guarded = false) =>
        Effect.flatMap(FiberRef.get(currentFence), (fence) => {
          const params: Array<unknown> = [run.id, run.tenant_id]
          const p = (value: unknown) => {
            params.push(value)
            return `$${params.length}`
          }
          const json = (value: unknown) => `${p(JSON.stringify(value))}::jsonb`
          const ctes: Array<string> = []
          const conditions: Array<string> = []
          if (fence !== undefined) {
            // FOR SHARE: a runner taking the shard over (an upsert of this row) waits for this commit, or this commit sees it.
            ctes.push(`fence AS (SELECT 1 FROM cluster_locks WHERE shard_id = ${p(fence.shardId)} AND address = ${p(fence.address)}
              AND acquired_at >= now() - make_interval(secs => ${p(fence.leaseSeconds)}) FOR SHARE)`)
            conditions.push("EXISTS (SELECT 1 FROM fence)")
          }
          const fenced = conditions.length === 0 ? "" : ` AND ${conditions.join(" AND ")}`
          if (guarded && batch.runUpdate !== undefined) conditions.push("EXISTS (SELECT 1 FROM ru)")
          const when = conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`
          const andWhen = conditions.length === 0 ? "" : ` AND ${conditions.join(" AND ")}`
          const u = batch.runUpdate
          if (u !== undefined) {
            const set: Array<string> = ["updated_at = now()"]
            if (u.to !== undefined) {
              set.push(`status = ${p(u.to)}`)
              if (u.to === "running") set.push("started_at = coalesce(started_at, now())")
              if (isTerminal(u.to)) set.push("finished_at = now()", "dormant = false")
            }
            if (u.output !== undefined) set.push(`output = ${json(u.output)}`)
            if (u.named_outputs !== undefined) set.push(`named_outputs = ${json(u.named_outputs)}`)
            if (u.error !== undefined) set.push(`error = ${p(u.error)}`)
            if (u.dormant !== undefined) set.push(`dormant = ${p(u.dormant)}`)
            if (u.wake_done !== undefined) set.push(`wake_done = greatest(wake_done, ${p(u.wake_done)}::bigint)`)
            const where = u.from === undefined ? "" : ` AND status = ANY(${p(u.from)}::text[])`
            ctes.push(`ru AS (UPDATE runs SET ${set.join(", ")} WHERE id = $1${where}${fenced} RETURNING status, wake_seq)`)
          }
          if (batch.steps.size > 0) {
            ctes.push(`st AS (INSERT INTO run_steps (id, run_id, tenant_id, node_id, node_type, node_name, status, attempt, output, error,
                error_kind, error_code, token_usage, position, started_at, finished_at)
              SELECT v.id, $1, $2, v.node_id, v.node_type, v.node_name, v.status, v.attempt, v.output, v.error, v.error_kind, v.error_code,
                coalesce(v.token_usage, '{}'::jsonb), v.position, CASE WHEN v.started THEN now() END, CASE WHEN v.finished THEN now() END
              FROM jsonb_to_recordset(${json([...batch.steps.values()].map((s) => ({ ...s, token_usage: s.usage ?? null, output: s.output ?? null })))})
                AS v(id uuid, node_id text, node_type text, node_name text, status text, attempt int, output jsonb, error text,
                  error_kind text, error_code text, token_usage jsonb, position int, started boolean, finished boolean)${when}
              ON CONFLICT (run_id, node_id) DO UPDATE SET status = EXCLUDED.status, attempt = EXCLUDED.attempt,
                output = EXCLUDED.output, error = EXCLUDED.error, error_kind = EXCLUDED.error_kind, error_code = EXCLUDED.error_code, token_usage = EXCLUDED.token_usage,
                started_at = coalesce(EXCLUDED.started_at, run_steps.started_at),
                finished_at = coalesce(EXCLUDED.finished_at, run_steps.finished_at))`)
          }
          if (batch.events.length > 0) {
            const events = batch.events.map((e, i) => ({ seq: firstSeq + i, key: e.key, type: e.type, payload: e.payload, span_id: e.spanId ?? null }))
            ctes.push(`ev AS (INSERT INTO run_events (run_id, seq, dedupe_key, type, payload, span_id)
              SELECT $1, v.seq, v.key, v.type, v.payload, v.span_id
              FROM jsonb_to_recordset(${json(events)}) AS v(seq bigint, key text, type text, payload jsonb, span_id text)${when}
              ON CONFLICT DO NOTHING)`)
          }
          if (batch.spans.length > 0) {
            ctes.push(`sp AS (INSERT INTO run_spans (run_id, span_id, tenant_id, scope, start_unix_nano, otlp)
              SELECT $1, v.span_id, $2, v.scope, v.start, v.otlp FROM jsonb_to_recordset(${json(batch.spans)})
                AS v(span_id text, scope text, start bigint, otlp jsonb)${when}
              ON CONFLICT DO NOTHING)`)
          }
          if (batch.hitl.length > 0) {
            ctes.push(
              `hr AS (INSERT INTO hitl_requests (id, tenant_id, run_id, workflow_id, node_id, type, prompt, choices, form_schema, assignee, deferred_token)
              SELECT v.id, $2, $1, v.workflow_id, v.node_id, v.type, v.prompt, v.choices, v.form_schema, v.assignee, ''
              FROM jsonb_to_recordset(${json(batch.hitl)}) AS v(id uuid, workflow_id uuid, node_id text, type text, prompt text,
                choices jsonb, form_schema jsonb, assignee jsonb)${when}
              ON CONFLICT (run_id, node_id) DO NOTHING)`
            )
          }
          if (batch.waits.length > 0) {
            ctes.push(`wt AS (INSERT INTO run_waits (run_id, node_id, kind, key, deadline)
              SELECT $1, v.node_id, v.kind, v.key, v.deadline FROM jsonb_to_recordset(${json(batch.waits)})
                AS v(node_id text, kind text, key text, deadline timestamptz)${when}
              ON CONFLICT (run_id, node_id) DO UPDATE SET kind = EXCLUDED.kind, key = EXCLUDED.key, deadline = EXCLUDED.deadline,
                resolution = NULL, resolved_at = NULL)`)
          }
          if (batch.cancelHitl) {
            ctes.push(`hc AS (UPDATE hitl_requests SET status = 'cancelled', responded_at = now()
              WHERE run_id = $1 AND status IN ('pending', 'claimed')${andWhen} RETURNING id)`)
          }
          if (batch.wake.length > 0) {
            ctes.push(`wk AS (UPDATE runs SET wake_seq = wake_seq + 1, updated_at = now() WHERE id = ANY(${p(batch.wake)}::uuid[])${andWhen})`)
          }
          if (ctes.length === (fence === undefined ? 0 : 1)) {
            return Effect.succeed({ status: undefined, wakeSeq: undefined, hitlCancelled: 0 } satisfies Committed)
          }
          const select = [
            u !== undefined ? "(SELECT status FROM ru) AS status, (SELECT wake_seq::float8 FROM ru) AS wake_seq" : "NULL AS status, NULL AS wake_seq",
            batch.cancelHitl ? "(SELECT count(*)::int FROM hc) AS hitl_cancelled" : "0 AS hitl_cancelled",
            fence !== undefined ? "EXISTS (SELECT 1 FROM fence) AS held" : "true AS held",
            // Every parameter must be typed, also when no write used the tenant.
            "$2::uuid AS tenant_id"
          ].join(", ")
          return sql.query<{ status: RunStatus | null; wake_seq: number | null; hitl_cancelled: number; held: boolean }>(
            `WITH ${ctes.join(",\n")}\nSELECT ${select}`,
            params
          ).pipe(
            Effect.orDie,
            Effect.tap((rows) =>
              fence !== undefined && rows[0]?.held !== true ? Effect.die(new ShardLost({ shardId: fence.shardId, address: fence.address })) : Effect.void
            ),
            Effect.tap((rows) => countTransition(run, u, rows[0]?.status)),
            Effect.map((rows): Committed => ({
              status: rows[0]?.status ?? undefined,
              wakeSeq: rows[0]?.wake_seq ?? undefined,
              hitlCancelled: rows[0]?.hitl_cancelled ?? 0
            }))
          )
        })

      const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        client.withTransaction(effect).pipe(Effect.catchIf((e): e is SqlError => e instanceof SqlError, (e) => Effect.die(e)))

      return { load, commit, withTransaction }
    })
  )
}
