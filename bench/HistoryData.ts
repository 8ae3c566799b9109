import { Effect } from "effect"
import type pg from "pg"

/**
 * Finished 3-node runs written straight into the run tables, shaped like the runs benchmark's own
 * (three steps, thirteen events, three compact span sets, one run in fifty failed), spread evenly
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
        `INSERT INTO run_events (run_id, seq, dedupe_key, type, payload, created_at, span_id)
         SELECT b.id, e.seq, e.key, e.type, e.payload::jsonb, b.t, substr(md5(b.id::text || e.node), 1, 16)
         FROM batch b CROSS JOIN (VALUES
           (1, 'a', 'step_started:a', 'step_started', '{"node_id": "a"}'), (2, 'a', 'token:a:1:0', 'token', '{"node_id": "a", "delta": "ok"}'),
           (3, 'a', 'agent_completed:a', 'agent_completed', '{"node_id": "a", "output": {"text": "ok"}}'),
           (4, 'a', 'step_completed:a', 'step_completed', '{"node_id": "a", "status": "completed"}'),
           (5, 'b', 'step_started:b', 'step_started', '{"node_id": "b"}'), (6, 'b', 'token:b:1:0', 'token', '{"node_id": "b", "delta": "ok"}'),
           (7, 'b', 'agent_completed:b', 'agent_completed', '{"node_id": "b", "output": {"text": "ok"}}'),
           (8, 'b', 'step_completed:b', 'step_completed', '{"node_id": "b", "status": "completed"}'),
           (9, 'c', 'step_started:c', 'step_started', '{"node_id": "c"}'), (10, 'c', 'token:c:1:0', 'token', '{"node_id": "c", "delta": "ok"}'),
           (11, 'c', 'agent_completed:c', 'agent_completed', '{"node_id": "c", "output": {"text": "ok"}}'),
           (12, 'c', 'step_completed:c', 'step_completed', '{"node_id": "c", "status": "completed"}'),
           (13, '', 'run_completed', 'run_completed', '{"status": "completed"}')
         ) e(seq, node, key, type, payload)`
      )
      yield* q(
        `INSERT INTO run_spans (run_id, span_id, tenant_id, scope, start_unix_nano, spans)
         SELECT b.id, substr(md5(b.id::text || n.node), 1, 16), $1, 'builder-platform',
           (extract(epoch FROM b.t) * 1e9)::bigint, jsonb_build_array(
             jsonb_build_object('i', substr(md5(b.id::text || n.node || 'l'), 1, 16), 'n', 'llm.call', 's', ((extract(epoch FROM b.t) * 1e9)::bigint)::text,
               'd', 43395675, 'p', substr(md5(b.id::text || n.node || 'g'), 1, 16), 'c', 1, 'a', jsonb_build_object('llm.input', 'user: {}',
               'llm.output', 'ok', 'llm.latency_ms', 44, 'llm.instructions', 'Step ' || n.node, 'llm.finish_reason', 'stop',
               'gen_ai.request.model', 'bench-model', 'gen_ai.operation.name', 'chat', 'gen_ai.response.model', 'bench-model',
               'gen_ai.usage.input_tokens', 5, 'gen_ai.usage.total_tokens', 6, 'gen_ai.usage.output_tokens', 1)),
             jsonb_build_object('i', substr(md5(b.id::text || n.node || 'g'), 1, 16), 'n', 'agent.run', 's', ((extract(epoch FROM b.t) * 1e9)::bigint)::text,
               'd', 43419989, 'p', substr(md5(b.id::text || n.node), 1, 16), 'c', 1, 'a', jsonb_build_object('agent.type', 'respond', 'agent.type_version', 'v1')),
             jsonb_build_object('i', substr(md5(b.id::text || n.node), 1, 16), 'n', 'node ' || n.node, 's', ((extract(epoch FROM b.t) * 1e9)::bigint)::text,
               'd', 59471021, 'p', 0, 'c', 1, 'f', 769, 'a', jsonb_build_object('node.id', n.node, 'node.name', n.node, 'node.type', 'agent',
               'step.status', 'completed')))
         FROM batch b CROSS JOIN (VALUES ('a'), ('b'), ('c')) n(node)`,
        [options.tenantId]
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
