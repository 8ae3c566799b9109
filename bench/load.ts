/**
 * Load (part of `npm run bench`, BENCH_ONLY=load; issue 21 part 10). The platform runs as its own
 * process (`npm start`'s entry point) and so does the bare server of bench/BareServer.ts
 * (`node:http` + `pg`, the same query, nothing else); autocannon loads each from this process with
 * BENCH_CONNECTIONS (32) connections, BENCH_SECONDS (5) per try after a 2 s warm-up, three tries,
 * medians. Cases: `GET /health` (SELECT 1), an authenticated read (`GET /api/v1/auth/users/me` with
 * an API key; the bare server does the key's joined read) and the run endpoint (platform only).
 * `GET /health` is also loaded on bench/StackFloorServer.ts (a minimal HttpApi server, no code of
 * ours): the framework's own share. Then BENCH_STREAMS (1,000) SSE streams follow BENCH_STREAM_RUNS (50) runs paused on an approval;
 * they are approved one every BENCH_APPROVE_EVERY_MS (100; 0 approves all at once) and each
 * event's lag is its arrival at each client minus its row's `created_at` (same clock).
 */
import autocannon from "autocannon"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import * as path from "node:path"
import pg from "pg"
import { freePort } from "../platform/FreePort.js"
import { type EventRow, storedEvents } from "../runtime/run/RunEvents.js"
import { benchDatabase, instantModel, json, percentile, platformArgs } from "./support.js"

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const TRIES = Number(process.env.BENCH_TRIES ?? 3)
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000)
const STREAM_RUNS = Number(process.env.BENCH_STREAM_RUNS ?? 50)
/** One approval every this many ms (0: all at once). */
const APPROVE_EVERY_MS = Number(process.env.BENCH_APPROVE_EVERY_MS ?? 100)
const repo = path.resolve(import.meta.dirname, "..")

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** A child process, killed with the scope. */
const child = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => spawn(process.execPath, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit", "ipc"] })),
    (p: ChildProcess) =>
      Effect.async<void>((resume) => {
        if (p.exitCode !== null) return resume(Effect.void)
        p.once("exit", () => resume(Effect.void))
        p.kill("SIGTERM")
      })
  )

const waitFor = (url: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 600; i++) {
      if (yield* Effect.promise(() => fetch(url, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false))) return
      yield* sleep(100)
    }
    return yield* Effect.dieMessage(`${url} never answered`)
  })

interface Figures {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly failed: number
}

/** Medians of TRIES autocannon runs after a warm-up. */
const load = (options: { url: string; method?: string; headers?: Record<string, string>; body?: string }) =>
  Effect.promise(async (): Promise<Figures> => {
    await autocannon({ ...options, connections: CONNECTIONS, duration: 2 })
    const tries = []
    for (let i = 0; i < TRIES; i++) tries.push(await autocannon({ ...options, connections: CONNECTIONS, duration: SECONDS }))
    return {
      rps: median(tries.map((t) => t.requests.average)),
      p50: median(tries.map((t) => t.latency.p50)),
      p99: median(tries.map((t) => t.latency.p99)),
      failed: tries.reduce((n, t) => n + t.non2xx + t.errors + t.timeouts, 0)
    }
  })

const line = (name: string, ours: Figures, bare?: Figures) =>
  `  ${name}: platform ${ours.rps.toFixed(0)} req/s, p50 ${ours.p50} ms, p99 ${ours.p99} ms (${ours.failed} failed)` +
  (bare === undefined
    ? ""
    : `; bare ${bare.rps.toFixed(0)} req/s, p50 ${bare.p50} ms, p99 ${bare.p99} ms; RESULT_P99_RATIO ${(ours.p99 / Math.max(1, bare.p99)).toFixed(2)}`)

/** Follows a run's SSE stream, noting when each event arrives. */
const follow = (base: string, token: string, runId: string, arrivals: Map<string, Array<number>>, opened: () => void) =>
  Effect.async<number>((resume) => {
    const req = request(`${base}/api/v1/workflow/runs/${runId}/stream`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      opened()
      let buffer = ""
      let events = 0
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        const now = Date.now()
        buffer += chunk
        const blocks = buffer.split("\n\n")
        buffer = blocks.pop() ?? ""
        for (const block of blocks) {
          const id = /^id: (\d+)$/m.exec(block)?.[1]
          if (id === undefined) continue
          events++
          const key = `${runId}:${id}`
          arrivals.set(key, [...(arrivals.get(key) ?? []), now])
        }
      })
      res.on("end", () => resume(Effect.succeed(events)))
    })
    req.on("error", () => resume(Effect.succeed(-1)))
    req.end()
  })

export const loadBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const port = yield* freePort
  const barePort = yield* freePort
  const base = `http://127.0.0.1:${port}`
  yield* child([...platformArgs], {
    DATABASE_URL: db.url,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-load-")),
    JWT_SECRET: randomBytes(32).toString("hex"),
    CREDENTIALS_KEY: randomBytes(32).toString("base64"),
    BOOTSTRAP_ADMIN_EMAIL: "load@example.test",
    BOOTSTRAP_ADMIN_PASSWORD: "load-password",
    LLM_BASE_URL: model.baseUrl,
    LLM_MODELS: "bench-model",
    LOG_LEVEL: "warning",
    // The load generator is one client address: keep the per-address limits out of the way.
    PUBLIC_APP_RUNS_PER_MINUTE: "1000000"
  })
  yield* waitFor(`${base}/health`)
  const login = yield* Effect.promise(() =>
    fetch(`${base}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "load@example.test", password: "load-password" })
    })
      .then((r) => r.json() as Promise<{ access_token: string }>)
  )
  const token = login.access_token
  const key = (yield* json(base, token, "POST", "/api/v1/auth/api-keys", { name: "load" })).key as string
  yield* child(["--import", "tsx", "bench/BareServer.ts"], { DATABASE_URL: db.url, PORT: String(barePort) })
  yield* waitFor(`http://127.0.0.1:${barePort}/health`)

  const floorPort = yield* freePort
  yield* child(["--import", "tsx", "bench/StackFloorServer.ts"], { DATABASE_URL: db.url, PORT: String(floorPort) })
  yield* waitFor(`http://127.0.0.1:${floorPort}/health`)

  const health = yield* load({ url: `${base}/health` })
  const bareHealth = yield* load({ url: `http://127.0.0.1:${barePort}/health` })
  const floorHealth = yield* load({ url: `http://127.0.0.1:${floorPort}/health` })
  const me = yield* load({ url: `${base}/api/v1/auth/users/me`, headers: { "x-api-key": key } })
  const bareMe = yield* load({ url: `http://127.0.0.1:${barePort}/me`, headers: { "x-api-key": key } })

  const node = (id: string) => ({ id, type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: id } })
  const workflow = (yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name: "Load" })).id as string
  yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${workflow}`, { dag_definition: { nodes: [node("a")], edges: [] } })
  yield* json(base, token, "POST", `/api/v1/workflow/workflows/${workflow}/publish`)
  const runs = yield* load({
    url: `${base}/api/v1/workflow/workflows/${workflow}/run`,
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ input_params: {} })
  })

  // SSE: STREAMS followers of STREAM_RUNS paused runs, all approved at once.
  const waits = (yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name: "Streams" })).id as string
  yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${waits}`, {
    dag_definition: {
      nodes: [{ ...node("ask"), hitl: { type: "approval", prompt: "Go?", assignee: { role: "builder" } } }, node("after")],
      edges: [{ from: "ask", to: "after" }]
    }
  })
  yield* json(base, token, "POST", `/api/v1/workflow/workflows/${waits}/publish`)
  const paused = yield* Effect.forEach(
    Array.from({ length: STREAM_RUNS }),
    () => Effect.map(json(base, token, "POST", `/api/v1/workflow/workflows/${waits}/run`, { input_params: {} }), (r) => r.id as string),
    { concurrency: 8 }
  )
  const poller = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => poller.connect()), () => Effect.promise(() => poller.end()))
  const requests = async () =>
    (await poller.query(`SELECT id, run_id FROM hitl_requests WHERE run_id = ANY($1) AND status = 'pending'`, [paused])).rows as Array<
      { id: string; run_id: string }
    >
  for (let i = 0; i < 200 && (yield* Effect.promise(requests)).length < STREAM_RUNS; i++) yield* sleep(100)
  const arrivals = new Map<string, Array<number>>()
  let open = 0
  const followers = yield* Effect.fork(
    Effect.forEach(Array.from({ length: STREAMS }, (_, i) => paused[i % paused.length]), (runId) => follow(base, token, runId, arrivals, () => void open++), {
      concurrency: "unbounded"
    })
  )
  // Measured once every stream is open and the platform is idle again.
  for (let i = 0; i < 600 && open < STREAMS; i++) yield* sleep(100)
  yield* sleep(2000)
  const approvedAt = Date.now()
  const approve = (r: { id: string }) => json(base, token, "POST", `/api/v1/workflow/hitl/${r.id}/respond`, { response: { approved: true } })
  if (APPROVE_EVERY_MS === 0) yield* Effect.forEach(yield* Effect.promise(requests), approve, { concurrency: "unbounded", discard: true })
  else {
    yield* Effect.forEach(yield* Effect.promise(requests), (r) => Effect.zipRight(Effect.fork(approve(r)), sleep(APPROVE_EVERY_MS)), { discard: true })
  }
  const counts = yield* followers
  const stored = (yield* Effect.promise(() =>
    poller.query<EventRow & { run_id: string }>(`SELECT run_id, seq, type, payload, body, created_at FROM run_events WHERE run_id = ANY($1)`, [paused])
  )).rows
  const rows = stored.flatMap((row) =>
    storedEvents(row.run_id, [row]).map((e) => ({ run_id: row.run_id, seq: e.seq, at: e.at?.getTime() ?? 0 }))
  )
  const followersOf = STREAMS / STREAM_RUNS
  const lags = rows.filter((r) => r.at >= approvedAt - 50).flatMap((r) => {
    const got = arrivals.get(`${r.run_id}:${r.seq}`) ?? []
    // A delivery that never came counts as infinitely late.
    return [...got.map((t) => t - r.at), ...Array.from({ length: Math.max(0, followersOf - got.length) }, () => Number.POSITIVE_INFINITY)]
  }).sort((a, b) => a - b)
  const perRun = new Map<string, number>()
  for (const r of rows) perRun.set(r.run_id, (perRun.get(r.run_id) ?? 0) + 1)
  const short = counts.filter((n, i) => n !== perRun.get(paused[i % paused.length])).length

  return [
    `load: ${CONNECTIONS} connections, ${TRIES} tries of ${SECONDS} s after a 2 s warm-up, medians; autocannon in this process, each server in its own`,
    line("GET /health", health, bareHealth),
    `  the stack's floor (bench/StackFloorServer.ts, HttpApi with no code of ours): ${
      floorHealth.rps.toFixed(0)
    } req/s, p50 ${floorHealth.p50} ms, p99 ${floorHealth.p99} ms; RESULT_FLOOR_P99_RATIO ${
      (floorHealth.p99 / Math.max(1, bareHealth.p99)).toFixed(2)
    } of the bare server's`,
    line("GET /api/v1/auth/users/me (API key)", me, bareMe),
    line("POST /workflows/{id}/run (1 node)", runs),
    `SSE: ${STREAMS} streams on ${STREAM_RUNS} runs paused on an approval, ${
      APPROVE_EVERY_MS === 0 ? "all approved at once" : `one approved every ${APPROVE_EVERY_MS} ms`
    }: ${short} streams missed or repeated events`,
    `  RESULT_SSE_LAG p50 ${percentile(lags, 0.5).toFixed(0)} ms, p99 ${
      percentile(lags, 0.99).toFixed(0)
    } ms over ${lags.length} deliveries of events after the approval (${followersOf} followers per run)`
  ]
}))
