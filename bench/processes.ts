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
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { freePort } from "../platform/FreePort.js"
import { postgresCpuMs, selfCpuMs } from "./Cpu.js"
import { threeNodeDag } from "./runs.js"
import { benchDatabase, instantModel, json, publishedBenchWorkflow, signIn } from "./support.js"

const RUNS = Number(process.env.BENCH_RUNS ?? 3000)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32)
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const SHAPE = process.env.BENCH_SHAPE === "split" ? "split" : "all"
const RUNNERS = SHAPE === "split" ? Number(process.env.BENCH_RUNNERS ?? 1) : 0

/** CPU milliseconds used so far by one process. */
const cpuOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10 // USER_HZ 100
}

const spawnPlatform = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, ["--max-semi-space-size=32", "--import", "tsx", "services/gateway/main.ts"], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
        stdio: ["ignore", "ignore", "inherit"]
      })
    ),
    (child: ChildProcess) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  )

export const processesBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const port = yield* freePort
  const common = {
    DATABASE_URL: db.url,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODELS: "bench-model",
    JWT_SECRET: randomBytes(32).toString("hex"),
    CREDENTIALS_KEY: randomBytes(32).toString("base64"),
    LOG_LEVEL: "warning"
  }
  const dataDir = () => mkdtempSync(path.join(tmpdir(), "bp-bench-"))
  const runners = yield* Effect.forEach(
    Array.from({ length: RUNNERS }),
    () =>
      Effect.flatMap(
        Effect.all([freePort, freePort]),
        ([httpPort, runnerPort]) => spawnPlatform({ ...common, ROLE: "runners", PORT: String(httpPort), RUNNER_PORT: String(runnerPort), DATA_DIR: dataDir() })
      )
  )
  const front = yield* spawnPlatform({
    ...common,
    ROLE: SHAPE === "split" ? "gateway" : "all",
    PORT: String(port),
    DATA_DIR: dataDir(),
    BOOTSTRAP_ADMIN_EMAIL: "bench@example.test",
    BOOTSTRAP_ADMIN_PASSWORD: "bench-password"
  })
  const base = `http://127.0.0.1:${port}`
  while (!(yield* Effect.promise(() => fetch(`${base}/ready`).then((r) => r.ok, () => false)))) yield* Effect.sleep("200 millis")
  const token = yield* signIn(base, "bench@example.test", "bench-password")
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
  const children = [front, ...runners]
  const cpu0 = children.map((c) => cpuOf(c.pid ?? 0))
  const pg0 = postgresCpuMs()
  const self0 = selfCpuMs()
  const t0 = performance.now()
  yield* Effect.forEach(Array.from({ length: RUNS }), () => start, { concurrency: CONCURRENCY, discard: true })
  yield* drain
  const wall = (performance.now() - t0) / 1000
  const perRun = (ms: number) => (ms / RUNS).toFixed(2)
  const cpu = children.map((c, i) => perRun(cpuOf(c.pid ?? 0) - cpu0[i]))
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
