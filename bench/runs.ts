/**
 * Durable runs of a 3-node DAG against an instantly answering model (part of `npm run bench`):
 * runs/s, start-to-completed latency, orchestration overhead per node, and the plain-SQL cost
 * of the same writes side by side. BENCH_RUNS (default 300) and BENCH_CONCURRENCY (default 32).
 */
import { randomUUID } from "node:crypto"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { benchDatabase, benchPlatform, instantModel, json, percentile } from "./support.js"

const RUNS = Number(process.env.BENCH_RUNS ?? 300)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32)

const node = (id: string) => ({
  id,
  type: "agent",
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: `Step ${id}` }
})


/** The same rows a 3-node run writes, as plain SQL with no engine in between. */
const plainSqlRun = (tenantId: string, workflowId: string) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    const runId = randomUUID()
    const event = (type: string, key: string) =>
      sql`WITH next AS (UPDATE runs SET event_seq = event_seq + 1 WHERE id = ${runId} RETURNING event_seq)
        INSERT INTO run_events (run_id, seq, dedupe_key, type, payload)
        SELECT ${runId}, event_seq, ${key}, ${type}, '{}'::jsonb FROM next`
    yield* sql`INSERT INTO runs (id, tenant_id, workflow_id, workflow_name, version, status, trigger_type)
      VALUES (${runId}, ${tenantId}, ${workflowId}, 'bench', 2, 'pending', 'ui')`
    yield* sql`UPDATE runs SET status = 'running', started_at = now() WHERE id = ${runId} AND status = 'pending'`
    for (const n of ["a", "b", "c"]) {
      const stepId = randomUUID()
      yield* sql`INSERT INTO run_steps (id, run_id, tenant_id, node_id, node_type, status, position, started_at)
        VALUES (${stepId}, ${runId}, ${tenantId}, ${n}, 'agent', 'running', 0, now())`
      yield* event("step_started", `s:${n}`)
      yield* event("token", `t:${n}`)
      yield* sql`UPDATE run_steps SET status = 'completed', output = '{"text":"ok"}', finished_at = now() WHERE id = ${stepId}`
      yield* event("agent_completed", `a:${n}`)
      yield* event("step_completed", `c:${n}`)
    }
    yield* sql`UPDATE runs SET status = 'completed', finished_at = now() WHERE id = ${runId} AND status = 'running'`
    yield* event("run_completed", "done")
  })

export const runsBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const { base, token } = yield* benchPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "bench-model" })
  const w = yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name: "Bench" })
  const workflowId = w.id as string
  yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${workflowId}`, {
    dag_definition: { nodes: [node("a"), node("b"), node("c")], edges: [{ from: "a", to: "b" }, { from: "b", to: "c" }] }
  })
  yield* json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/publish`)

  const started = performance.now()
  const ids = yield* Effect.forEach(
    Array.from({ length: RUNS }, (_, i) => i),
    () => json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/run`, { input_params: {} }).pipe(Effect.map((r) => r.id as string)),
    { concurrency: CONCURRENCY }
  )
  const sql = Context.get(yield* Layer.build(PgClient.layer({ url: Redacted.make(db.url) })), PgClient.PgClient)
  for (;;) {
    const [row] = yield* sql<{ done: number }>`SELECT count(*)::int AS done FROM runs WHERE status IN ('completed', 'failed')`
    if ((row?.done ?? 0) >= ids.length) break
    yield* Effect.sleep("20 millis")
  }
  const wall = (performance.now() - started) / 1000
  const rows = yield* sql<{ ms: number; failed: boolean }>`SELECT extract(epoch FROM finished_at - created_at) * 1000 AS ms,
    status = 'failed' AS failed FROM runs`
  const latencies = rows.map((r) => Number(r.ms)).sort((a, b) => a - b)
  const failed = rows.filter((r) => r.failed).length
  const [tenant] = yield* sql<{ tenant_id: string }>`SELECT tenant_id FROM workflows WHERE id = ${workflowId}`

  const plainStarted = performance.now()
  yield* Effect.forEach(Array.from({ length: RUNS }), () => plainSqlRun(tenant!.tenant_id, workflowId), {
    concurrency: CONCURRENCY,
    discard: true
  }).pipe(Effect.provideService(PgClient.PgClient, sql))
  const plainWall = (performance.now() - plainStarted) / 1000

  const p50 = percentile(latencies, 0.5)
  return [
    `durable runs: ${RUNS} runs of a 3-node DAG, concurrency ${CONCURRENCY}, ${failed} failed`,
    `  ${(RUNS / wall).toFixed(1)} runs/s; start->completed p50 ${p50.toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
    `  orchestration per node (p50, model answers at once): ${(p50 / 3).toFixed(1)} ms`,
    `plain SQL, same writes: ${(RUNS / plainWall).toFixed(1)} runs/s`
  ]
}))
