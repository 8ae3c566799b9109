/**
 * Durable runs of a 3-node DAG (BENCH_NODES for another chain length; part of `npm run bench`,
 * BENCH_ONLY=runs), the shape of the peer benchmarks in ../shared/bench-peers (DBOS Transact,
 * the plain-`pg` floor): every node is a `respond` agent step, one streamed chat completion from a
 * model on loopback that answers at once. The platform runs in this process on a fresh database with the load generator (Node
 * `fetch`), as the peers do.
 *
 * - concurrent: BENCH_WARMUP (300) runs to warm up, then BENCH_RUNS (300) started over HTTP with
 *   BENCH_CONCURRENCY (32) starts in flight; runs/s from the first start to the last completion.
 *   BENCH_START=direct starts them through the run module in this process instead (no HTTP, no
 *   credential: the peers' START=direct), which measures the kernel alone.
 * - serial: 5 to warm up, then BENCH_SERIAL (30) runs one at a time; start -> completed p50 from
 *   the run row; orchestration per node is that over 3 (the model answers at once).
 *   BENCH_SERIAL_SPANS=1 adds where the last 50 lone runs' time went: their traces' spans, each
 *   with its median start and duration (bench/TraceSpans.ts).
 * - statements and commits per run, counted on the wire (bench/PgTrace.ts); CPU of this process
 *   and of PostgreSQL per run.
 */
import { Context, Effect } from "effect"
import pg from "pg"
import { RunModule } from "../runtime/run/RunModule.js"
import { concurrentRuns } from "./Concurrent.js"
import { BENCH_MARK, makePgTrace } from "./PgTrace.js"
import { benchDatabase, benchPlatform, instantModel, json, percentile, publishedBenchWorkflow } from "./support.js"
import { spanMedians } from "./TraceSpans.js"

const RUNS = Number(process.env.BENCH_RUNS ?? 300)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32)
const SERIAL = Number(process.env.BENCH_SERIAL ?? 30)

let database: string | undefined
/** BENCH_PLATFORM_X=v sets the platform's X (e.g. BENCH_PLATFORM_TENANT_MAX_RUNS_IN_FLIGHT=1000). */
const platformEnv = Object.fromEntries(
  Object.entries(process.env).flatMap(([k, v]) => (k.startsWith("BENCH_PLATFORM_") && v !== undefined ? [[k.slice("BENCH_PLATFORM_".length), v]] : []))
)
const trace = makePgTrace(() => database)

const node = (id: string) => ({
  id,
  type: "agent",
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: `Step ${id}` }
})

/** A chain of `n` respond nodes: a -> b -> c ... */
const chainDag = (n: number) => {
  const ids = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + i))
  return { nodes: ids.map(node), edges: ids.slice(1).map((to, i) => ({ from: ids[i], to })) }
}

export const threeNodeDag = chainDag(3)
/** BENCH_NODES: the chain's length (3, the peers' shape, unless set): runs of two lengths split a run's cost into per-run and per-node. */
const NODES = Number(process.env.BENCH_NODES ?? 3)

const median = (values: ReadonlyArray<number>) => percentile([...values].sort((a, b) => a - b), 0.5)

export const runsBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  database = db.name
  const model = yield* instantModel
  const { base, token, context } = yield* benchPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "bench-model", ...platformEnv })
  const { tenantId, workflowId } = yield* publishedBenchWorkflow(base, token, chainDag(NODES))

  const poller = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => poller.connect()), () => Effect.promise(() => poller.end()))
  const query = <A>(text: string, values: ReadonlyArray<unknown> = []) =>
    Effect.promise(() => poller.query(`${BENCH_MARK} ${text}`, [...values])).pipe(Effect.map((r) => r.rows as Array<A>))
  const modules = Context.get(context, RunModule)
  const start = process.env.BENCH_START === "direct"
    ? modules.start({ tenantId, workflowId, triggerType: "api", isDryRun: false, input: {} }).pipe(
      Effect.map((run) => run.id),
      Effect.orDie
    )
    : json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/run`, { input_params: {} }).pipe(
      Effect.map((r) => r.id as string)
    )
  const unfinished = query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE status NOT IN ('completed', 'failed', 'cancelled')`).pipe(
    Effect.map((rows) => rows[0].n)
  )
  const { ids, nodeCpu, pgCpu, statements, wall } = yield* concurrentRuns({ start, unfinished, trace, warmup: WARMUP, runs: RUNS, concurrency: CONCURRENCY })
  if (process.env.BENCH_STATEMENTS === "1") {
    const counts = new Map<string, number>()
    for (const st of statements) {
      const key = `${st.inTransaction ? "  tx " : ""}${st.text.replace(/\s+/g, " ").slice(0, 90)}`
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${(n / RUNS).toFixed(2)} ${k}`)
  }
  const rows = yield* query<{ ms: number; status: string }>(
    `SELECT extract(epoch FROM finished_at - created_at) * 1000 AS ms, status FROM runs WHERE id = ANY($1)`,
    [ids]
  )
  const latencies = rows.map((r) => Number(r.ms)).sort((a, b) => a - b)
  const failed = rows.filter((r) => r.status !== "completed").length
  const perRun = (n: number) => (n / RUNS).toFixed(1)

  // Serial
  for (let i = 0; i < 5; i++) {
    const id = yield* start
    while ((yield* query<{ status: string }>(`SELECT status FROM runs WHERE id = $1`, [id]))[0]?.status !== "completed") yield* Effect.sleep("2 millis")
  }
  const serial: Array<number> = []
  const serialIds: Array<string> = []
  for (let i = 0; i < SERIAL; i++) {
    const id = yield* start
    serialIds.push(id)
    for (;;) {
      const [row] = yield* query<{ status: string; ms: number | null }>(
        `SELECT status, extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM runs WHERE id = $1`,
        [id]
      )
      if (row?.status === "completed" || row?.status === "failed") {
        serial.push(Number(row.ms))
        break
      }
      yield* Effect.sleep("2 millis")
    }
  }
  const serialP50 = median(serial)
  const spans = process.env.BENCH_SERIAL_SPANS === "1" ? yield* spanMedians(base, token, serialIds.slice(-50)) : []

  return [
    `durable runs: ${RUNS} runs of a ${NODES}-node DAG after ${WARMUP} to warm up, ${CONCURRENCY} concurrent starts (${
      process.env.BENCH_START === "direct" ? "through the run module" : "over HTTP"
    }), ${failed} not completed`,
    `  RESULT_RUNS_PER_S ${(RUNS / wall).toFixed(1)}; start -> completed p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${
      percentile(latencies, 0.99).toFixed(1)
    } ms`,
    `  CPU per run: this process ${(nodeCpu / RUNS).toFixed(2)} ms (${(nodeCpu / 10 / wall).toFixed(0)}% of a core), PostgreSQL ${
      (pgCpu / RUNS).toFixed(2)
    } ms`,
    `  per run: ${perRun(statements.length)} statements, ${perRun(trace.commits(statements))} commits (${perRun(trace.writes(statements))} of them writes)`,
    `serial: ${SERIAL} runs one at a time`,
    `  RESULT_SERIAL start -> completed p50 ${serialP50.toFixed(1)} ms, p99 ${
      percentile([...serial].sort((a, b) => a - b), 0.99).toFixed(1)
    } ms; orchestration per node (p50 / ${NODES}) ${(serialP50 / NODES).toFixed(2)} ms`,
    ...(spans.length > 0 ? ["  the last 50 lone runs' spans: median start after the run's first, median duration", ...spans] : [])
  ]
}))
