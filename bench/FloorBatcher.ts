/**
 * Group commit for the stack floor (`BENCH_FLOOR_BATCHED=1`), done the way the peers' batched floor
 * does it: every write of every run in flight waits in one queue, and one flush at a time writes the
 * whole queue as one statement (a multi-row insert per table, through `unnest` and
 * `jsonb_to_recordset`, and one multi-row update for the runs that end), so a flush is atomic
 * without a transaction of its own. A write's effect resumes only once its flush has committed; an
 * idle queue flushes at once, so a run alone waits for nothing more than its own statement.
 */
import { Effect } from "effect"
import type pg from "pg"

export interface FloorNodeWrite {
  readonly runId: string
  readonly step: { readonly id: string; readonly node_id: string; readonly output: unknown; readonly usage: unknown }
  readonly events: ReadonlyArray<{ readonly seq: number; readonly key: string; readonly type: string; readonly payload: unknown }>
  readonly spans: ReadonlyArray<{ readonly span_id: string; readonly scope: string; readonly start: string; readonly otlp: unknown }>
  /** The run's last node: the run ends with it. */
  readonly end: boolean
}

type Entry = { readonly run: string } | { readonly node: FloorNodeWrite }

const FLUSH = `WITH r AS (INSERT INTO runs (id, status, input_params) SELECT id, 'pending', '{}' FROM unnest($1::uuid[]) AS u(id)),
  st AS (INSERT INTO run_steps (id, run_id, node_id, status, output, token_usage)
    SELECT v.id, v.run_id, v.node_id, 'completed', v.output, v.usage
    FROM jsonb_to_recordset($2::jsonb) AS v(id uuid, run_id uuid, node_id text, output jsonb, usage jsonb)),
  ev AS (INSERT INTO run_events (run_id, seq, dedupe_key, type, payload)
    SELECT v.run_id, v.seq, v.key, v.type, v.payload FROM jsonb_to_recordset($3::jsonb) AS v(run_id uuid, seq bigint, key text, type text, payload jsonb)),
  sp AS (INSERT INTO run_spans (run_id, span_id, scope, start_unix_nano, otlp)
    SELECT v.run_id, v.span_id, v.scope, v.start, v.otlp FROM jsonb_to_recordset($4::jsonb) AS v(run_id uuid, span_id text, scope text, start bigint, otlp jsonb)),
  ru AS (UPDATE runs SET status = 'completed', output = '{}', finished_at = clock_timestamp() FROM unnest($5::uuid[]) AS u(id) WHERE runs.id = u.id)
SELECT 1`

export const makeFloorBatcher = (pool: pg.Pool) => {
  let queue: Array<{ readonly entry: Entry; readonly done: (error: Error | undefined) => void }> = []
  let flushing = false
  const stats = { flushes: 0, writes: 0 }

  const flush = (): void => {
    if (flushing || queue.length === 0) return
    flushing = true
    const batch = queue
    queue = []
    const runs: Array<string> = []
    const nodes: Array<FloorNodeWrite> = []
    for (const { entry } of batch) {
      if ("run" in entry) runs.push(entry.run)
      else nodes.push(entry.node)
    }
    const values = [
      runs,
      JSON.stringify(nodes.map((n) => ({ ...n.step, run_id: n.runId }))),
      JSON.stringify(nodes.flatMap((n) => n.events.map((e) => ({ ...e, run_id: n.runId })))),
      JSON.stringify(nodes.flatMap((n) => n.spans.map((s) => ({ ...s, run_id: n.runId })))),
      nodes.filter((n) => n.end).map((n) => n.runId)
    ]
    pool.query({ name: "floor_flush", text: FLUSH, values }, (error) => {
      stats.flushes += 1
      stats.writes += batch.length
      flushing = false
      for (const w of batch) w.done(error ?? undefined)
      flush()
    })
  }

  const write = (entry: Entry) =>
    Effect.async<void>((resume) => {
      queue.push({ entry, done: (error) => resume(error === undefined ? Effect.void : Effect.die(error)) })
      flush()
    })

  return {
    startRun: (runId: string) => write({ run: runId }),
    node: (node: FloorNodeWrite) => write({ node }),
    stats
  }
}
