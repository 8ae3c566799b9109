/**
 * Runs paused on a person (part of `npm run bench`, BENCH_ONLY=hitl): BENCH_PAUSED (10,000)
 * runs of a 2-node DAG whose first node waits for an approval are started and left paused; once
 * their run entities are passivated (an idle run's state is its rows) the resident memory of
 * this process (platform, load generator and model together) is read. Then BENCH_RESUMES (50)
 * of them, picked at random, are approved one at a time: approval request -> run completed.
 * The baseline is read after as many runs of the same DAG without the approval (BENCH_WARMUP,
 * default BENCH_PAUSED) have run to completion: a process grows to the working set of starting
 * thousands of runs and keeps it whether they pause or not, so only a warmed baseline shows what
 * the paused runs themselves hold.
 */
import { Effect } from "effect"
import pg from "pg"
import { BENCH_MARK } from "./PgTrace.js"
import { benchDatabase, benchPlatform, instantModel, json, percentile } from "./support.js"

const PAUSED = Number(process.env.BENCH_PAUSED ?? 10_000)
const RESUMES = Number(process.env.BENCH_RESUMES ?? 50)
const WARMUP = Number(process.env.BENCH_WARMUP ?? PAUSED)

const node = (id: string) => ({
  id,
  type: "agent",
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: `Step ${id}` }
})

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

export const hitlBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const { base, token } = yield* benchPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "bench-model" })
  const w = yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name: "Approvals" })
  const workflowId = w.id as string
  yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${workflowId}`, {
    dag_definition: {
      nodes: [{ ...node("ask"), hitl: { type: "approval", prompt: "Go on?", assignee: { role: "builder_admin" } } }, node("after")],
      edges: [{ from: "ask", to: "after" }]
    }
  })
  yield* json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/publish`)
  const poller = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => poller.connect()), () => Effect.promise(() => poller.end()))
  const query = <A>(text: string, values: ReadonlyArray<unknown> = []) =>
    Effect.promise(() => poller.query(`${BENCH_MARK} ${text}`, [...values])).pipe(Effect.map((r) => r.rows as Array<A>))

  const plain = yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name: "Warm-up" })
  yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${plain.id}`, {
    dag_definition: { nodes: [node("ask"), node("after")], edges: [{ from: "ask", to: "after" }] }
  })
  yield* json(base, token, "POST", `/api/v1/workflow/workflows/${plain.id}/publish`)
  yield* Effect.forEach(
    Array.from({ length: WARMUP }),
    () => json(base, token, "POST", `/api/v1/workflow/workflows/${plain.id}/run`, { input_params: {} }),
    { concurrency: 32, discard: true }
  )
  while ((yield* query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE status <> 'completed'`))[0].n > 0) {
    yield* Effect.sleep("200 millis")
  }
  yield* Effect.sleep("12 seconds")
  globalThis.gc?.()
  yield* Effect.sleep("1 second")
  const before = process.memoryUsage()
  const baseline = before.rss
  const t0 = performance.now()
  yield* Effect.forEach(
    Array.from({ length: PAUSED }),
    () => json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/run`, { input_params: {} }),
    { concurrency: 32, discard: true }
  )
  while ((yield* query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE status = 'paused'`))[0].n < PAUSED) {
    yield* Effect.sleep("200 millis")
  }
  const pausedAfter = (performance.now() - t0) / 1000
  // The cluster's reaper passivates idle run entities every 5 s.
  yield* Effect.sleep("12 seconds")
  globalThis.gc?.()
  yield* Effect.sleep("1 second")
  const memory = process.memoryUsage()

  const requests = yield* query<{ id: string; run_id: string }>(
    `SELECT id, run_id FROM hitl_requests WHERE status = 'pending' ORDER BY random() LIMIT $1`,
    [RESUMES]
  )
  const resumes: Array<number> = []
  for (const request of requests) {
    const started = performance.now()
    yield* json(base, token, "POST", `/api/v1/workflow/hitl/${request.id}/respond`, { response: { approved: true } })
    while ((yield* query<{ status: string }>(`SELECT status FROM runs WHERE id = $1`, [request.run_id]))[0]?.status !== "completed") {
      yield* Effect.sleep("1 millis")
    }
    resumes.push(performance.now() - started)
  }
  resumes.sort((a, b) => a - b)
  return [
    `paused runs: ${PAUSED} runs waiting on an approval (all paused after ${pausedAfter.toFixed(1)} s)`,
    `  RESULT_PAUSED_RSS ${mb(memory.rss)} resident (${mb(baseline)} before them, after ${WARMUP} runs that completed; heap used ${mb(memory.heapUsed)}, ${
      mb(before.heapUsed)
    } before)`,
    `  RESULT_RESUME approval -> run completed p50 ${percentile(resumes, 0.5).toFixed(1)} ms, p99 ${
      percentile(resumes, 0.99).toFixed(1)
    } ms (${resumes.length} runs, one at a time)`
  ]
}))
