import { Effect } from "effect"
import type pg from "pg"
import { uuidV7 } from "../platform/TimedId.js"
import type { EventWrite, SpanWrite } from "../runtime/run/Batch.js"
import { derivedStepId, encodeRecord, recordHasDetail, recordHasKeys } from "../runtime/run/JournalRecord.js"

const spansOf = (node: string, at: bigint): SpanWrite => ({
  span_id: `${node}000000000000000`,
  scope: "builder-platform",
  start: `${at}`,
  spans: [
    {
      i: `${node}100000000000000`,
      n: "llm.call",
      s: `${at + 30_000_000n}`,
      d: 43395675,
      p: `${node}200000000000000`,
      c: 1,
      a: {
        "llm.input": "user: {}",
        "llm.output": "ok",
        "llm.latency_ms": 44,
        "llm.instructions": `Step ${node}`,
        "llm.finish_reason": "stop",
        "gen_ai.request.model": "bench-model",
        "gen_ai.operation.name": "chat",
        "gen_ai.response.model": "bench-model",
        "gen_ai.usage.input_tokens": 5,
        "gen_ai.usage.total_tokens": 6,
        "gen_ai.usage.output_tokens": 1
      }
    },
    {
      i: `${node}200000000000000`,
      n: "agent.run",
      s: `${at + 30_000_000n}`,
      d: 43419989,
      p: `${node}000000000000000`,
      c: 1,
      a: { "agent.type": "respond", "agent.type_version": "v1" }
    },
    {
      i: `${node}000000000000000`,
      n: `node ${node}`,
      s: `${at}`,
      d: 59471021,
      p: 0,
      c: 1,
      f: 769,
      a: { "node.id": node, "step.id": "", "node.name": node, "node.type": "agent", "step.status": "completed" }
    }
  ]
})

/**
 * A run's journal records as the platform writes them (JournalRecord.ts): a node's start rides on
 * the previous node's end; step ids are the derived ones (left out of the record), so one template
 * fits every run.
 */
const templateRecords = () => {
  const template = uuidV7()
  const at = BigInt(Date.now()) * 1_000_000n
  const step = (node: string) => ({ node_id: node, step_id: derivedStepId(template, node) })
  const started = (node: string): EventWrite => ({ type: "step_started", payload: step(node), key: `step_started:${node}`, spanId: `${node}000000000000000` })
  const ended = (node: string): ReadonlyArray<EventWrite> => [
    { type: "token", payload: { ...step(node), delta: "ok" }, key: undefined, spanId: `${node}000000000000000` },
    { type: "agent_completed", payload: { ...step(node), output: { text: "ok" } }, key: `agent_completed:${node}`, spanId: `${node}000000000000000` },
    { type: "step_completed", payload: { ...step(node), status: "completed" }, key: `step_completed:${node}`, spanId: `${node}000000000000000` }
  ]
  const withIds = (node: string): SpanWrite => {
    const set = spansOf(node, at)
    return { ...set, spans: set.spans.map((s) => (s.a?.["step.id"] === "" ? { ...s, a: { ...s.a, "step.id": derivedStepId(template, node) } } : s)) }
  }
  const commits: ReadonlyArray<[ReadonlyArray<EventWrite>, ReadonlyArray<SpanWrite>]> = [
    [[started("a")], []],
    [[...ended("a"), started("b")], [withIds("a")]],
    [[...ended("b"), started("c")], [withIds("b")]],
    [[...ended("c"), { type: "run_completed", payload: { status: "completed" }, key: "run_completed", spanId: undefined }], [withIds("c")]]
  ]
  let seq = 0
  return commits.map(([events, spans]) => {
    seq += events.length
    return {
      seq,
      body: encodeRecord(template, events, spans).toString("base64"),
      keyed: recordHasKeys(events),
      detail: recordHasDetail(events, spans)
    }
  })
}

/**
 * Finished 3-node runs written straight into the run tables, shaped like the runs benchmark's own
 * (three steps, thirteen events in four journal records with the spans, one run in fifty failed), spread evenly
 * from the start of the day `days` days ago to an hour ago, with version-7 ids of their time (each
 * in its day's partition, which must exist), in chunks of 100,000 runs; and `pending` runs paused on a HITL
 * approval assigned to builders. What the history benchmark measures the platform against.
 */
export const generateHistory = (client: pg.Client, options: {
  readonly tenantId: string
  readonly workflowId: string
  readonly userId: string
  readonly runs: number
  readonly days: number
  readonly pending: number
}) =>
  Effect.gen(function*() {
    const q = (text: string, values: ReadonlyArray<unknown> = []) => Effect.promise(() => client.query(text, [...values]))
    yield* q("SET synchronous_commit = off")
    const records = templateRecords()
    const chunk = 100_000
    for (let from = 0; from < options.runs; from += chunk) {
      const to = Math.min(options.runs, from + chunk)
      yield* q("BEGIN")
      // Version-7 ids of each run's time, as the platform makes them: each run lands in its day's partition.
      yield* q(
        `CREATE TEMP TABLE batch ON COMMIT DROP AS
         SELECT (lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3) || '8'
           || substr(md5(random()::text), 1, 15))::uuid AS id, i, t
         FROM (SELECT i, date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - make_interval(days => $1)
           + (i::float8 / $2) * (now() - interval '1 hour' - (date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - make_interval(days => $1))) AS t
           FROM generate_series($3::int, $4::int - 1) i) g`,
        [options.days, options.runs, from, to]
      )
      yield* q(
        `INSERT INTO runs (id, tenant_id, workflow_id, workflow_name, version, status, trigger_type, is_dry_run, input_params, output,
           named_outputs, error, created_by, created_at, started_at, finished_at, updated_at)
         SELECT id, $1, $2, 'Bench', 2, CASE WHEN i % 50 = 0 THEN 'failed' ELSE 'completed' END,
           (ARRAY['api', 'ui', 'schedule', 'webhook'])[1 + i % 4], false, '{}', '{"text": "ok"}', '{}',
           CASE WHEN i % 50 = 0 THEN 'The model failed' END, $3, t, t + interval '20 ms', t + interval '150 ms', t + interval '150 ms'
         FROM batch`,
        [options.tenantId, options.workflowId, options.userId]
      )
      yield* q(
        `INSERT INTO run_steps (id, run_id, tenant_id, node_id, node_type, status, attempt, output, token_usage, position, started_at, finished_at)
         SELECT gen_random_uuid(), b.id, $1, n.node, 'agent', 'completed', 1, '{"text": "ok"}',
           '{"bench-model": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}', n.pos, b.t, b.t + interval '150 ms'
         FROM batch b CROSS JOIN (VALUES ('a', 0), ('b', 1), ('c', 2)) n(node, pos)`,
        [options.tenantId]
      )
      yield* q(
        `INSERT INTO run_events (run_id, seq, body, keyed, detail, created_at)
         SELECT b.id, r.seq, decode(r.body, 'base64'), r.keyed, r.detail, b.t
         FROM batch b CROSS JOIN jsonb_to_recordset($1::jsonb) AS r(seq int, body text, keyed boolean, detail boolean)`,
        [JSON.stringify(records)]
      )
      yield* q("COMMIT")
    }
    // Paused runs waiting on an approval for builders: the HITL inbox's rows.
    yield* q(
      `WITH paused AS (
         INSERT INTO runs (id, tenant_id, workflow_id, workflow_name, version, status, trigger_type, created_by, created_at, started_at, updated_at)
         SELECT (lpad(to_hex((extract(epoch FROM now() - make_interval(mins => i)) * 1000)::bigint), 12, '0') || '7'
           || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15))::uuid,
           $1, $2, 'Bench', 2, 'paused', 'api', $3, now() - make_interval(mins => i), now() - make_interval(mins => i), now()
         FROM generate_series(1, $4::int) i RETURNING id, created_at
       )
       INSERT INTO hitl_requests (id, tenant_id, run_id, workflow_id, node_id, type, prompt, assignee, deferred_token, created_at)
       SELECT gen_random_uuid(), $1, id, $2, 'a', 'approval', 'Go?', '{"role": "builder"}', '', created_at FROM paused`,
      [options.tenantId, options.workflowId, options.userId, options.pending]
    )
    yield* q("SET synchronous_commit = on")
    yield* q("VACUUM ANALYZE")
  })
