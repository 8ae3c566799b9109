import { Effect } from "effect"
import type { PreparedSql } from "../../platform/PreparedSql.js"
import type { RunStatus } from "../../schemas/RunLifecycle.js"
import type { Batch } from "./Batch.js"
import { encodeRecord, recordHasDetail, recordHasKeys } from "./JournalRecord.js"

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

/** The run a commit is for (its trigger type labels the run metrics). */
export interface JournalRun {
  readonly id: string
  readonly tenant_id: string
  readonly trigger_type?: string
}

/** One run's commit: its batch, its first event number, whether it is guarded, and the lease it is made under. */
export interface CommitEntry {
  readonly run: JournalRun
  readonly batch: Batch
  readonly firstSeq: number
  /** Nothing is written unless the batch's run transition applies (its `from` still holds). */
  readonly guarded: boolean
  readonly fence: CommitFence | undefined
}

/** What the commit statement returns for one entry. */
export interface CommitRow {
  readonly status: RunStatus | null
  readonly wake_seq: number | null
  readonly hitl_cancelled: number
  readonly held: boolean
}

const TERMINAL = "('completed', 'failed', 'cancelled')"
const NO_RUN = "00000000-0000-0000-0000-000000000000"

/** Which parts a commit statement needs: only those its entries have rows for are in its text. */
interface Parts {
  readonly fence: boolean
  readonly update: boolean
  readonly steps: boolean
  readonly events: boolean
  readonly spans: boolean
  readonly hitl: boolean
  readonly waits: boolean
  readonly cancelHitl: boolean
  readonly wake: boolean
}

/**
 * The journal's statement for the commits of any number of runs (each run at most once, and no
 * run both committed and woken): one multi-row write per kind, all or nothing. `en` lists the
 * entries: a commit applies when its lease still holds (`ok`) and, guarded, when its run
 * transition applied (`good`). Only the parts with rows are in the text, so a node's usual
 * commit (its step rows and events) opens no table it does not write (each part over a
 * partitioned table costs PostgreSQL every partition's lock at each execution); the texts are a
 * handful (one per combination of kinds), each prepared once per pooled connection. Parameters
 * are named (`:en`) and numbered in order of first use.
 */
const statementText = (parts: Parts) => {
  const ok = (column: string) => parts.fence ? `${column} IN (SELECT idx FROM ok)` : "true"
  const good = parts.steps || parts.events || parts.spans || parts.hitl || parts.waits || parts.cancelHitl || parts.wake
  const ctes = [
    `en AS (
  SELECT * FROM jsonb_to_recordset(:en::jsonb) AS e(idx int, run_id uuid, tenant_id uuid, shard text, address text, lease int, guarded boolean,
    has_update boolean, from_status text[], to_status text, set_output boolean, output jsonb, set_named boolean, named_outputs jsonb,
    set_error boolean, error text, dormant boolean, wake_done bigint, cancel_hitl boolean)
)`,
    parts.fence && `fence AS (
  SELECT l.shard_id, l.address FROM cluster_locks l JOIN en ON l.shard_id = en.shard AND l.address = en.address
  WHERE l.acquired_at >= now() - make_interval(secs => en.lease) FOR SHARE OF l
), ok AS (
  SELECT en.idx FROM en WHERE en.shard IS NULL OR EXISTS (SELECT 1 FROM fence f WHERE f.shard_id = en.shard AND f.address = en.address)
)`,
    parts.update && `ru AS (
  UPDATE runs r SET updated_at = now(),
    status = coalesce(en.to_status, r.status),
    started_at = CASE WHEN en.to_status = 'running' THEN coalesce(r.started_at, now()) ELSE r.started_at END,
    finished_at = CASE WHEN en.to_status IN ${TERMINAL} THEN now() ELSE r.finished_at END,
    dormant = CASE WHEN en.dormant IS NOT NULL THEN en.dormant WHEN en.to_status IN ${TERMINAL} THEN false ELSE r.dormant END,
    output = CASE WHEN en.set_output THEN en.output ELSE r.output END,
    named_outputs = CASE WHEN en.set_named THEN en.named_outputs ELSE r.named_outputs END,
    error = CASE WHEN en.set_error THEN en.error ELSE r.error END,
    wake_done = CASE WHEN en.wake_done IS NOT NULL THEN greatest(r.wake_done, en.wake_done) ELSE r.wake_done END
  FROM en WHERE en.has_update AND r.id = en.run_id AND r.id BETWEEN :lo::uuid AND :hi::uuid
    AND (en.from_status IS NULL OR r.status = ANY(en.from_status))
    AND ${ok("en.idx")}
  RETURNING en.idx, r.status, r.wake_seq
)`,
    good && `good AS (
  SELECT en.idx, en.run_id, en.tenant_id, en.cancel_hitl FROM en
  WHERE ${ok("en.idx")} AND (NOT en.guarded OR NOT en.has_update${parts.update ? " OR en.idx IN (SELECT idx FROM ru)" : ""})
)`,
    parts.steps && `st AS (
  INSERT INTO run_steps (id, run_id, tenant_id, node_id, node_type, node_name, status, attempt, output, error, error_kind, error_code,
    token_usage, position, started_at, finished_at)
  SELECT v.id, g.run_id, g.tenant_id, v.node_id, v.node_type, v.node_name, v.status, v.attempt, v.output, v.error, v.error_kind, v.error_code,
    coalesce(v.token_usage, '{}'::jsonb), v.position, CASE WHEN v.started THEN now() END, CASE WHEN v.finished THEN now() END
  FROM jsonb_to_recordset(:steps::jsonb) AS v(idx int, id uuid, node_id text, node_type text, node_name text, status text, attempt int,
    output jsonb, error text, error_kind text, error_code text, token_usage jsonb, position int, started boolean, finished boolean)
  JOIN good g ON g.idx = v.idx
  ON CONFLICT (run_id, node_id) DO UPDATE SET status = EXCLUDED.status, attempt = EXCLUDED.attempt, output = EXCLUDED.output,
    error = EXCLUDED.error, error_kind = EXCLUDED.error_kind, error_code = EXCLUDED.error_code, token_usage = EXCLUDED.token_usage,
    started_at = coalesce(EXCLUDED.started_at, run_steps.started_at), finished_at = coalesce(EXCLUDED.finished_at, run_steps.finished_at)
)`,
    parts.events && `ev AS (
  INSERT INTO run_events (run_id, seq, body, keyed, detail)
  SELECT g.run_id, v.seq, decode(v.body, 'base64'), v.keyed, v.detail
  FROM jsonb_to_recordset(:events::jsonb) AS v(idx int, seq bigint, body text, keyed boolean, detail boolean) JOIN good g ON g.idx = v.idx
  ON CONFLICT DO NOTHING
)`,
    parts.spans && `sp AS (
  INSERT INTO run_spans (run_id, span_id, tenant_id, scope, start_unix_nano, spans)
  SELECT g.run_id, v.span_id, g.tenant_id, v.scope, v.start, v.spans
  FROM jsonb_to_recordset(:spans::jsonb) AS v(idx int, span_id text, scope text, start bigint, spans jsonb) JOIN good g ON g.idx = v.idx
  ON CONFLICT DO NOTHING
)`,
    parts.hitl && `hr AS (
  INSERT INTO hitl_requests (id, tenant_id, run_id, workflow_id, node_id, type, prompt, choices, form_schema, assignee, deferred_token)
  SELECT v.id, g.tenant_id, g.run_id, v.workflow_id, v.node_id, v.type, v.prompt, v.choices, v.form_schema, v.assignee, ''
  FROM jsonb_to_recordset(:hitl::jsonb) AS v(idx int, id uuid, workflow_id uuid, node_id text, type text, prompt text, choices jsonb,
    form_schema jsonb, assignee jsonb) JOIN good g ON g.idx = v.idx
  ON CONFLICT (run_id, node_id) DO NOTHING
)`,
    parts.waits && `wt AS (
  INSERT INTO run_waits (run_id, node_id, kind, key, deadline)
  SELECT g.run_id, v.node_id, v.kind, v.key, v.deadline
  FROM jsonb_to_recordset(:waits::jsonb) AS v(idx int, node_id text, kind text, key text, deadline timestamptz) JOIN good g ON g.idx = v.idx
  ON CONFLICT (run_id, node_id) DO UPDATE SET kind = EXCLUDED.kind, key = EXCLUDED.key, deadline = EXCLUDED.deadline,
    resolution = NULL, resolved_at = NULL
)`,
    parts.cancelHitl && `hc AS (
  UPDATE hitl_requests h SET status = 'cancelled', responded_at = now() FROM good g
  WHERE g.cancel_hitl AND h.run_id = g.run_id AND h.run_id BETWEEN :lo::uuid AND :hi::uuid AND h.status IN ('pending', 'claimed')
  RETURNING g.idx
)`,
    parts.wake && `wk AS (
  UPDATE runs SET wake_seq = wake_seq + 1, updated_at = now()
  WHERE id IN (SELECT v.run_id FROM jsonb_to_recordset(:wake::jsonb) AS v(idx int, run_id uuid) JOIN good g ON g.idx = v.idx)
    AND id BETWEEN :wakeLo::uuid AND :wakeHi::uuid
)`
  ].filter((part): part is string => typeof part === "string")
  const select = `SELECT en.idx, ${
    parts.update ?
      "(SELECT ru.status FROM ru WHERE ru.idx = en.idx) AS status, (SELECT ru.wake_seq::float8 FROM ru WHERE ru.idx = en.idx) AS wake_seq" :
      "NULL::text AS status, NULL::float8 AS wake_seq"
  },
  ${parts.cancelHitl ? "(SELECT count(*)::int FROM hc WHERE hc.idx = en.idx)" : "0"} AS hitl_cancelled, ${ok("en.idx")} AS held
FROM en ORDER BY en.idx`
  const names: Array<Parameter> = []
  const text = `WITH ${ctes.join(", ")}\n${select}`.replace(/:(en|steps|events|spans|hitl|waits|wake|lo|hi|wakeLo|wakeHi)\b/g, (_, name: Parameter) => {
    if (!names.includes(name)) names.push(name)
    return `$${names.indexOf(name) + 1}`
  })
  return { text, names }
}

type Parameter = "en" | "steps" | "events" | "spans" | "hitl" | "waits" | "wake" | "lo" | "hi" | "wakeLo" | "wakeHi"

const PART_KEYS = ["fence", "update", "steps", "events", "spans", "hitl", "waits", "cancelHitl", "wake"] as const
const statements = new Map<number, ReturnType<typeof statementText>>()

/** The statement for these parts, built once per combination. */
const statementFor = (parts: Parts) => {
  const key = PART_KEYS.reduce((bits, k, i) => (parts[k] ? bits | (1 << i) : bits), 0)
  let statement = statements.get(key)
  if (statement === undefined) {
    statement = statementText(parts)
    statements.set(key, statement)
  }
  return statement
}

/** The statement for these entries and its parameters: one JSON array per kind, each row tagged with its entry. */
const statementOf = (entries: ReadonlyArray<CommitEntry>) => {
  const en: Array<unknown> = []
  const steps: Array<unknown> = []
  const events: Array<unknown> = []
  const spans: Array<unknown> = []
  const hitl: Array<unknown> = []
  const waits: Array<unknown> = []
  const wake: Array<unknown> = []
  entries.forEach(({ batch, fence, firstSeq, guarded, run }, idx) => {
    const u = batch.runUpdate
    en.push({
      idx,
      run_id: run.id,
      tenant_id: run.tenant_id,
      shard: fence?.shardId ?? null,
      address: fence?.address ?? null,
      lease: fence?.leaseSeconds ?? null,
      guarded,
      has_update: u !== undefined,
      from_status: u?.from ?? null,
      to_status: u?.to ?? null,
      set_output: u?.output !== undefined,
      output: u?.output ?? null,
      set_named: u?.named_outputs !== undefined,
      named_outputs: u?.named_outputs ?? null,
      set_error: u?.error !== undefined,
      error: u?.error ?? null,
      dormant: u?.dormant ?? null,
      wake_done: u?.wake_done ?? null,
      cancel_hitl: batch.cancelHitl
    })
    for (const s of batch.steps.values()) steps.push({ ...s, idx, token_usage: s.usage ?? null, output: s.output ?? null })
    // A commit's events are one record (numbered by its last event), with the spans that ended with them; spans alone are a row of run_spans.
    if (batch.events.length > 0) {
      events.push({
        idx,
        seq: firstSeq + batch.events.length - 1,
        body: encodeRecord(run.id, batch.events, batch.spans).toString("base64"),
        keyed: recordHasKeys(batch.events),
        detail: recordHasDetail(batch.events, batch.spans)
      })
    } else {
      for (const s of batch.spans) spans.push({ ...s, idx })
    }
    for (const h of batch.hitl) hitl.push({ ...h, idx })
    for (const w of batch.waits) waits.push({ ...w, idx })
    for (const runId of batch.wake) wake.push({ idx, run_id: runId })
  })
  // The id ranges of the runs committed and woken: with them PostgreSQL touches only the
  // partitions those runs are in (a range of parameters prunes a generic plan; a join does not).
  const range = (ids: ReadonlyArray<string>) =>
    ids.length === 0 ? [NO_RUN, NO_RUN] : [ids.reduce((a, b) => (b < a ? b : a)), ids.reduce((a, b) => (b > a ? b : a))]
  const [lo, hi] = range(entries.map((e) => e.run.id.toLowerCase()))
  const [wakeLo, wakeHi] = range(entries.flatMap((e) => e.batch.wake.map((id) => id.toLowerCase())))
  const parts: Parts = {
    fence: entries.some((e) => e.fence !== undefined),
    update: entries.some((e) => e.batch.runUpdate !== undefined),
    steps: steps.length > 0,
    events: events.length > 0,
    spans: spans.length > 0,
    hitl: hitl.length > 0,
    waits: waits.length > 0,
    cancelHitl: entries.some((e) => e.batch.cancelHitl),
    wake: wake.length > 0
  }
  const values: Record<Parameter, unknown> = {
    en: JSON.stringify(en),
    steps: JSON.stringify(steps),
    events: JSON.stringify(events),
    spans: JSON.stringify(spans),
    hitl: JSON.stringify(hitl),
    waits: JSON.stringify(waits),
    wake: JSON.stringify(wake),
    lo,
    hi,
    wakeLo,
    wakeHi
  }
  const statement = statementFor(parts)
  return { text: statement.text, values: statement.names.map((name) => values[name]) }
}

interface StatementRow {
  readonly idx: number
  readonly status: RunStatus | null
  readonly wake_seq: number | null
  readonly hitl_cancelled: number
  readonly held: boolean
}

/**
 * Whether the statement's generic plan is right for these entries: its id ranges are one run each
 * (one entry, waking at most one run), so pruning at execution reaches one partition and its index
 * scans one key. A group's range spans every run created between its oldest and newest, which a
 * generic plan would scan; PostgreSQL plans those with their values.
 */
const genericPlanFits = (entries: ReadonlyArray<CommitEntry>) => entries.length === 1 && entries[0].batch.wake.length <= 1

/**
 * Writes these entries' commits in one statement (prepared: one text per combination of parts)
 * and returns each entry's outcome, in order. Inside a transaction it is part of that transaction.
 */
export const commitAll = (sql: PreparedSql["Type"], entries: ReadonlyArray<CommitEntry>) =>
  Effect.suspend(() =>
    Effect.map(
      // Hot path: the statement's own result columns, read on every commit of every run.
      Effect.suspend(() => {
        const { text, values } = statementOf(entries)
        return genericPlanFits(entries) ? sql.queryGeneric<StatementRow>(text, values) : sql.query<StatementRow>(text, values)
      }),
      (rows) => entries.map((_, i): CommitRow => rows[i] ?? { status: null, wake_seq: null, hitl_cancelled: 0, held: false })
    )
  )
