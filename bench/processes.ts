/**
 * Durable runs with the platform in processes of its own (BENCH_ONLY=processes): the 3-node DAG of
 * `bench/runs.ts` started over HTTP from this process, which also serves the instant model, so the
 * platform's processes do only their own work, as in production where clients and the model
 * provider are elsewhere.
 * - BENCH_SHAPE=all (default): one `ROLE=all` process;
 * - BENCH_SHAPE=split: a `ROLE=gateway` process and BENCH_RUNNERS (1) `ROLE=runners` processes,
 *   events over PostgreSQL (their default without Redis).
 * BENCH_WARMUP (300) runs, a pause past the reaper's pass, then BENCH_RUNS (3000) with
 * BENCH_CONCURRENCY (32) starts in flight; runs/s from the first start to the last completion,
 * CPU per run of each process, of this one (load and model) and of PostgreSQL.
 */
import { Effect } from "effect"
import pg from "pg"
import { postgresCpuMs, processCpuMs as cpuOf, selfCpuMs } from "./Cpu.js"
import { threeNodeDag } from "./runs.js"
import { benchDatabase, childPlatform, instantModel, json, publishedBenchWorkflow } from "./support.js"

const RUNS = Number(process.env.BENCH_RUNS ?? 3000)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32)
const SHAPE = process.env.BENCH_SHAPE === "split" ? "split" : "all"
const RUNNERS = SHAPE === "split" ? Number(process.env.BENCH_RUNNERS ?? 1) : 0

export const processesBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const { base, pids, token } = yield* childPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "bench-model" }, RUNNERS)
  const { workflowId } = yield* publishedBenchWorkflow(base, token, threeNodeDag)
  const poller = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => poller.connect()), () => Effect.promise(() => poller.end()))
  const count = (where: string) =>
    Effect.promise(() => poller.query(`SELECT count(*)::int AS n FROM runs WHERE ${where}`)).pipe(Effect.map((r) => r.rows[0].n as number))
  const start = json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/run`, { input_params: {} })
  const drain = Effect.gen(function*() {
    while ((yield* count(`status NOT IN ('completed', 'failed', 'cancelled')`)) > 0) yield* Effect.sleep("20 millis")
  })
  yield* Effect.forEach(Array.from({ length: WARMUP }), () => start, { concurrency: CONCURRENCY, discard: true })
  yield* drain
  yield* Effect.sleep("7 seconds")
  const cpu0 = pids.map(cpuOf)
  const pg0 = postgresCpuMs()
  const self0 = selfCpuMs()
  const t0 = performance.now()
  yield* Effect.forEach(Array.from({ length: RUNS }), () => start, { concurrency: CONCURRENCY, discard: true })
  yield* drain
  const wall = (performance.now() - t0) / 1000
  const perRun = (ms: number) => (ms / RUNS).toFixed(2)
  const cpu = pids.map((pid, i) => perRun(cpuOf(pid) - cpu0[i]))
  const failed = yield* count(`status <> 'completed'`)
  return [
    `durable runs in processes of their own (${
      SHAPE === "split" ? `a gateway and ${RUNNERS} runner(s)` : "one ROLE=all process"
    }): ${RUNS} runs after ${WARMUP}, ${CONCURRENCY} concurrent starts over HTTP, ${failed} not completed`,
    `  RESULT_PROCESSES_RUNS_PER_S ${(RUNS / wall).toFixed(1)}`,
    `  CPU per run: ${SHAPE === "split" ? `gateway ${cpu[0]} ms, runners ${cpu.slice(1).join(", ")} ms` : `platform ${cpu[0]} ms`}, load and model ${
      perRun(selfCpuMs() - self0)
    } ms, PostgreSQL ${perRun(postgresCpuMs() - pg0)} ms`
  ]
}))
