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
 * CPU per run of each process, of this one (load and model) and of PostgreSQL, each platform
 * process's read and write system calls per run. BENCH_SERIAL (0) lone runs after them: their
 * latency and the platform's CPU per lone run (counted apart: until 2026-12-02 the CPU of this
 * process and PostgreSQL per run took in the lone runs' too).
 */
import { Effect } from "effect"
import pg from "pg"
import { postgresCpuMs, processCpuMs as cpuOf, processSyscalls, selfCpuMs } from "./Cpu.js"
import { BENCH_MARK } from "./PgTrace.js"
import { threeNodeDag } from "./runs.js"
import { benchDatabase, childPlatform, instantModel, json, percentile, publishedBenchWorkflow } from "./support.js"

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
  yield* heapSnapshot(pids)
  const cpu0 = pids.map(cpuOf)
  const sys0 = pids.map(processSyscalls)
  const pg0 = postgresCpuMs()
  const self0 = selfCpuMs()
  const t0 = performance.now()
  yield* Effect.forEach(Array.from({ length: RUNS }), () => start, { concurrency: CONCURRENCY, discard: true })
  yield* drain
  const wall = (performance.now() - t0) / 1000
  const perRun = (ms: number) => (ms / RUNS).toFixed(2)
  const cpu = pids.map((pid, i) => perRun(cpuOf(pid) - cpu0[i]))
  const syscalls = pids.map((pid, i) => {
    const now = processSyscalls(pid)
    return `${perRun(now.reads - sys0[i].reads)} reads, ${perRun(now.writes - sys0[i].writes)} writes`
  })
  const load = perRun(selfCpuMs() - self0)
  const postgres = perRun(postgresCpuMs() - pg0)
  const failed = yield* count(`status <> 'completed'`)
  yield* heapSnapshot(pids)
  const lone = yield* loneRuns(start, poller, pids)
  return [
    `durable runs in processes of their own (${
      SHAPE === "split" ? `a gateway and ${RUNNERS} runner(s)` : "one ROLE=all process"
    }): ${RUNS} runs after ${WARMUP}, ${CONCURRENCY} concurrent starts over HTTP, ${failed} not completed`,
    `  RESULT_PROCESSES_RUNS_PER_S ${(RUNS / wall).toFixed(1)}`,
    `  CPU per run: ${
      SHAPE === "split" ? `gateway ${cpu[0]} ms, runners ${cpu.slice(1).join(", ")} ms` : `platform ${cpu[0]} ms`
    }, load and model ${load} ms, PostgreSQL ${postgres} ms`,
    `  system calls per run (/proc/<pid>/io): ${syscalls.join("; ")}`,
    ...lone
  ]
}))

/**
 * BENCH_HEAP_SNAPSHOTS=1: each platform process writes a heap snapshot (V8's own, after a full
 * collection: what is still alive) into the repository's folder after the warm-up and again
 * after the measured runs (each 7 s after them, past the entity reaper's closes), through
 * `--heapsnapshot-signal`. A snapshot slows the process for the rest of its life (V8 keeps tracking
 * its objects: 9-38 runs/s after it against 150-180), so its throughput and CPU figures mean nothing.
 */
const heapSnapshot = (pids: ReadonlyArray<number>) =>
  process.env.BENCH_HEAP_SNAPSHOTS === "1"
    ? Effect.gen(function*() {
      yield* Effect.sleep("7 seconds")
      for (const pid of pids) process.kill(pid, "SIGUSR2")
      yield* Effect.sleep("15 seconds")
    })
    : Effect.void

/**
 * BENCH_SERIAL (0) runs one at a time after the rest, each followed to its end: start -> completed
 * p50 from the run rows, and the platform's CPU per lone run, with none of the load generator's
 * and model's in its process (bench/runs.ts's lone runs share theirs).
 */
const loneRuns = (start: Effect.Effect<Record<string, unknown>>, poller: pg.Client, pids: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const serial = Number(process.env.BENCH_SERIAL ?? 0)
    if (serial === 0) return []
    const status = (id: string) =>
      Effect.promise(() => poller.query(`${BENCH_MARK} SELECT status, extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM runs WHERE id = $1`, [id]))
        .pipe(Effect.map((r) => r.rows[0] as { status: string; ms: number | null } | undefined))
    const cpu0 = pids.map(cpuOf)
    const latencies: Array<number> = []
    for (let i = 0; i < serial; i++) {
      const id = (yield* start).id as string
      for (;;) {
        const row = yield* status(id)
        if (row?.status === "completed" || row?.status === "failed") {
          latencies.push(Number(row.ms))
          break
        }
        yield* Effect.sleep("2 millis")
      }
    }
    latencies.sort((a, b) => a - b)
    const cpu = pids.map((pid, i) => ((cpuOf(pid) - cpu0[i]) / serial).toFixed(2))
    return [
      `  RESULT_PROCESSES_SERIAL ${serial} runs one at a time: start -> completed p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${
        percentile(latencies, 0.99).toFixed(1)
      } ms; platform CPU per lone run ${cpu.join(", ")} ms`
    ]
  })
