import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Data, Effect, FiberRef, Layer, Option, Schema } from "effect"
import { record, runsEnded, runsPaused, runsStarted } from "../../otel/Metrics.js"
import { PreparedSql } from "../../platform/PreparedSql.js"
import { uuidV7Floor, uuidV7Time } from "../../platform/TimedId.js"
import { retryTransient } from "../../platform/Transient.js"
import { isTerminal, type RunStatus } from "../../schemas/RunLifecycle.js"
import type { Batch } from "./Batch.js"
import { commitAll, type CommitEntry, type CommitFence, type JournalRun } from "./CommitSql.js"
import { makeGroupCommit } from "./GroupCommit.js"
import { decodeRecord } from "./JournalRecord.js"
import { Journaled } from "./RunRecord.js"

// Each part names the run by the parameter, not by `r.id`: PostgreSQL then plans only the run's
// partition of each table, not every partition for a correlated subquery to pick from (a third of the
// statement's cost: a 3-node run's load 1.2-1.3 ms against 3.2-3.4, its plan 1.9 ms against 3.9).
const LOAD = `
SELECT to_jsonb(r) - 'event_seq' AS run, r.wake_seq::float8 AS wake_seq,
  (SELECT coalesce(max(seq), 0)::float8 FROM run_events e WHERE e.run_id = $1::uuid) AS last_seq,
  (SELECT coalesce(jsonb_agg(e.dedupe_key), '[]'::jsonb) FROM run_events e WHERE e.run_id = $1::uuid AND e.body IS NULL AND e.dedupe_key IS NOT NULL) AS legacy_keys,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('seq', e.seq::float8, 'body', encode(e.body, 'base64'))), '[]'::jsonb)
   FROM run_events e WHERE e.run_id = $1::uuid AND e.keyed) AS keyed,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'node_id', s.node_id, 'status', s.status, 'output', s.output,
     'error', s.error, 'attempt', s.attempt, 'position', s.position) ORDER BY s.position), '[]'::jsonb)
   FROM run_steps s WHERE s.run_id = $1::uuid) AS steps,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('id', h.id, 'node_id', h.node_id, 'status', h.status, 'response', h.response)), '[]'::jsonb)
   FROM hitl_requests h WHERE h.run_id = $1::uuid) AS hitl,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('id', c.id, 'node_id', c.parent_node_id, 'status', c.status, 'output', c.output,
     'error', c.error)), '[]'::jsonb) FROM runs c WHERE c.parent_run_id = $1::uuid AND c.id BETWEEN $2::uuid AND $3::uuid) AS children,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('node_id', w.node_id, 'kind', w.kind, 'key', w.key, 'resolution', w.resolution,
     'resolved', w.resolved_at IS NOT NULL)), '[]'::jsonb) FROM run_waits w WHERE w.run_id = $1::uuid) AS waits
FROM runs r WHERE r.id = $1::uuid`

const decode = Schema.decodeUnknown(Journaled)

/** The event keys a load read: from one-event rows of earlier releases, and from the records that hold keys. */
const LoadedKeys = Schema.Struct({
  legacy_keys: Schema.Array(Schema.String),
  keyed: Schema.Array(Schema.Struct({ seq: Schema.Number, body: Schema.String }))
})
const decodeKeys = Schema.decodeUnknown(LoadedKeys)

const withKeys = (runId: string, row: Record<string, unknown>) =>
  Effect.map(decodeKeys(row), ({ keyed, legacy_keys }) => {
    const { keyed: _, legacy_keys: __, ...rest } = row
    const recorded = keyed.flatMap((r) => decodeRecord(runId, r.seq, Buffer.from(r.body, "base64")).events.flatMap((e) => (e.key === undefined ? [] : [e.key])))
    return { ...rest, keys: [...legacy_keys, ...recorded] }
  })

/**
 * The id range of a run's children: a version-7 run's children carry its time (childRunId), so
 * the journal's load looks in one partition of the runs table; an older run's could be anywhere.
 */
const childIds = (runId: string): [string, string] => {
  const at = uuidV7Time(runId)
  return at === undefined ? ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"] : [uuidV7Floor(at), uuidV7Floor(at + 1)]
}

export type { CommitFence, JournalRun }

export const currentFence = FiberRef.unsafeMake<CommitFence | undefined>(undefined)

/** A fenced commit was refused: this runner no longer holds the shard (a defect ending the activation). */
export class ShardLost extends Data.TaggedError("ShardLost")<{ readonly shardId: string; readonly address: string }> {}

/** Counts a run transition the commit made: started (pending to running), paused, ended. */
const countTransition = (run: JournalRun, update: Batch["runUpdate"], status: RunStatus | null | undefined) => {
  if (update?.to === undefined || status !== update.to) return Effect.void
  const trigger = run.trigger_type ?? "unknown"
  if (status === "running") {
    return update.from?.includes("pending") === true
      ? record(runsStarted(["trigger_type", trigger]), 1)
      : Effect.void
  }
  if (status === "paused") return record(runsPaused(["trigger_type", trigger]), 1)
  if (isTerminal(status)) return record(runsEnded(["trigger_type", trigger], ["status", status]), 1)
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
 * did (its step row, its events, its spans, the run row), so that a node's checkpoint and its
 * events are never apart. Commits of the runs on this process are grouped (GroupCommit.ts): one
 * statement, one transaction, carries every commit that waited while the previous one was written
 * (CommitSql.ts: one multi-row write per kind of row it has, one of a handful of prepared texts).
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
  /** Group commit: at most `maxEntries` runs' commits per statement, `writers` statements in flight. */
  static readonly layerWith = (options: { readonly maxEntries: number; readonly writers: number }) =>
    Layer.scoped(
      Journal,
      Effect.gen(function*() {
        const sql = yield* PreparedSql
        const client = yield* SqlClient.SqlClient

        const load = (runId: string) =>
          sql.query<Record<string, unknown>>(LOAD, [runId, ...childIds(runId)]).pipe(
            Effect.flatMap((rows) => rows[0] === undefined ? Effect.succeed(undefined) : Effect.flatMap(withKeys(runId, rows[0]), decode)),
            Effect.orDie
          )

        // Two writers' statements may lock the same runs in opposite orders (a commit and a wake-up): PostgreSQL
        // then aborts one of them, which is written again.
        const again = retryTransient
        const many = (entries: ReadonlyArray<CommitEntry>) => again(commitAll(sql, entries))
        const one = (entry: CommitEntry) => again(Effect.map(commitAll(sql, [entry]), (rows) => rows[0]))
        const submit = yield* makeGroupCommit({
          one,
          many,
          touches: (e) => [e.run.id, ...e.batch.wake],
          tenantOf: (e) => e.run.tenant_id,
          maxEntries: options.maxEntries,
          writers: options.writers
        })

        const commit = (run: JournalRun, batch: Batch, firstSeq: number, guarded = false) =>
          Effect.gen(function*() {
            if (batch.isEmpty) return { status: undefined, wakeSeq: undefined, hitlCancelled: 0 } satisfies Committed
            const fence = yield* FiberRef.get(currentFence)
            const entry: CommitEntry = { run, batch, firstSeq, guarded, fence }
            // Inside a transaction (a run's end with its followers' writes) the commit is part of it, not of a group.
            const inTransaction = Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))
            const row = inTransaction ? yield* Effect.orDie(one(entry)) : yield* submit(entry)
            if (fence !== undefined && !row.held) return yield* Effect.die(new ShardLost({ shardId: fence.shardId, address: fence.address }))
            yield* countTransition(run, batch.runUpdate, row.status)
            return { status: row.status ?? undefined, wakeSeq: row.wake_seq ?? undefined, hitlCancelled: row.hitl_cancelled } satisfies Committed
          })

        const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          client.withTransaction(effect).pipe(Effect.catchIf((e): e is SqlError => e instanceof SqlError, (e) => Effect.die(e)))

        return { load, commit, withTransaction }
      })
    )

  static readonly layer = Journal.layerWith({ maxEntries: 64, writers: 2 })
}
