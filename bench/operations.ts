/**
 * Operations (BENCH_ONLY=operations; issue 34), each ROUNDS (3) times, medians:
 * - a cold start of four processes (a gateway and three runners) started at the same moment on
 *   an empty database: until all four answer /health, and until the gateway is /ready;
 * - a runner frozen (SIGSTOP) with its shards: until none of its shard leases is its own any more
 *   (taken over), and until 30 runs started right after the freeze have all completed, at
 *   RUNNER_LEASE_SECONDS=15 (the default) and 5;
 * - `GET /metrics` on the gateway after those runs: latency per scrape (200 in a row) and size.
 */
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { freePort } from "../platform/FreePort.js"
import { benchDatabase, benchDataDir, instantModel, json, percentile, platformArgs } from "./support.js"

const ROUNDS = Number(process.env.BENCH_OPERATIONS_ROUNDS ?? 3)
const RUNS = 30
const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const answers = (url: string) => Effect.promise(() => fetch(url, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false))

const spawnPlatform = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => spawn(process.execPath, [...platformArgs], { env: { ...process.env, ...env }, stdio: "ignore" })),
    (child: ChildProcess) => Effect.sync(() => child.kill("SIGKILL"))
  )

const cluster = (leaseSeconds: number) =>
  Effect.gen(function*() {
    const db = yield* benchDatabase
    const model = yield* instantModel
    const common = {
      DATABASE_URL: db.url,
      HOST: "127.0.0.1",
      JWT_SECRET: randomBytes(32).toString("hex"),
      CREDENTIALS_KEY: randomBytes(32).toString("base64"),
      BOOTSTRAP_ADMIN_EMAIL: "bench@example.test",
      BOOTSTRAP_ADMIN_PASSWORD: "bench-password",
      LLM_BASE_URL: model.baseUrl,
      LLM_MODELS: "bench-model",
      EVENT_BUS: "postgres",
      RUNNER_LEASE_SECONDS: String(leaseSeconds)
    }
    const gatewayPort = yield* freePort
    const runnerPorts = [yield* freePort, yield* freePort, yield* freePort]
    const started = Date.now()
    yield* spawnPlatform({ ...common, ROLE: "gateway", PORT: String(gatewayPort), DATA_DIR: yield* benchDataDir })
    const runners = yield* Effect.forEach(runnerPorts, (runnerPort) =>
      Effect.flatMap(Effect.all([freePort, benchDataDir]), ([port, dataDir]) =>
        spawnPlatform({
          ...common,
          ROLE: "runners",
          PORT: String(port),
          RUNNER_PORT: String(runnerPort),
          DATA_DIR: dataDir
        })
          .pipe(Effect.map((child) => ({ child, port, address: `127.0.0.1:${runnerPort}` })))))
    const bases = [
      `http://127.0.0.1:${gatewayPort}`,
      ...runners.map((r) => `http://127.0.0.1:${r.port}`)
    ]
    while (!(yield* Effect.all(bases.map((b) => answers(`${b}/health`)))).every(Boolean)) yield* sleep(50)
    const allLive = Date.now() - started
    while (!(yield* answers(`${bases[0]}/ready`))) yield* sleep(50)
    const ready = Date.now() - started
    const client = new pg.Client({ connectionString: db.url })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
    return { base: bases[0], runners, client, allLive, ready }
  })

const token = (base: string) =>
  Effect.promise(() =>
    fetch(`${base}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "bench@example.test", password: "bench-password" })
    }).then((r) => r.json() as Promise<{ access_token: string }>).then((b) => b.access_token)
  )

const takeover = (leaseSeconds: number) =>
  Effect.scoped(Effect.gen(function*() {
    const { base, client, runners } = yield* cluster(leaseSeconds)
    const bearer = yield* token(base)
    const spread = Effect.promise(() => client.query<{ n: number }>("SELECT count(*)::int AS n FROM cluster_locks GROUP BY address"))
      .pipe(Effect.map((r) => r.rows.length === 3 && r.rows.every((row) => row.n >= 60)))
    while (!(yield* spread)) yield* sleep(100)
    const w = yield* json(base, bearer, "POST", "/api/v1/workflow/workflows", { name: "Takeover" })
    yield* json(base, bearer, "PATCH", `/api/v1/workflow/workflows/${w.id}`, {
      dag_definition: {
        nodes: [{ id: "a", type: "agent", name: "a", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "x" } }],
        edges: []
      }
    })
    yield* json(base, bearer, "POST", `/api/v1/workflow/workflows/${w.id}/publish`)
    const frozen = runners[1]
    const frozenAt = Date.now()
    frozen.child.kill("SIGSTOP")
    const ids = yield* Effect.forEach(Array.from({ length: RUNS }), () =>
      Effect.map(json(base, bearer, "POST", `/api/v1/workflow/workflows/${w.id}/run`, { input_params: {} }), (r) => r.id as string))
    let movedMs = 0
    let doneMs = 0
    while (movedMs === 0 || doneMs === 0) {
      if (movedMs === 0) {
        const held = yield* Effect.promise(() =>
          client.query<{ n: number }>("SELECT count(*)::int AS n FROM cluster_locks WHERE address = $1", [frozen.address])
        )
        if (held.rows[0].n === 0) movedMs = Date.now() - frozenAt
      }
      if (doneMs === 0) {
        const open = yield* Effect.promise(() =>
          client.query<{ n: number }>("SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND status <> 'completed'", [ids])
        )
        if (open.rows[0].n === 0) doneMs = Date.now() - frozenAt
      }
      yield* sleep(100)
    }
    const scrapes: Array<number> = []
    let bytes = 0
    for (let i = 0; i < 200; i++) {
      const t = performance.now()
      bytes = (yield* Effect.promise(() => fetch(`${base}/metrics`).then((r) => r.text()))).length
      scrapes.push(performance.now() - t)
    }
    return { movedMs, doneMs, scrapeMedian: median(scrapes), scrapeP99: percentile([...scrapes].sort((a, b) => a - b), 0.99), bytes }
  }))

export const operationsBench = Effect.gen(function*() {
  const lines: Array<string> = []
  const starts = yield* Effect.forEach(Array.from({ length: ROUNDS }), () => Effect.scoped(Effect.map(cluster(15), (c) => [c.allLive, c.ready] as const)))
  lines.push(
    `cold start, gateway + 3 runners at once on an empty database: all four live in median ${median(starts.map((s) => s[0]))} ms ` +
      `(${starts.map((s) => s[0]).join(", ")}), gateway ready in ${median(starts.map((s) => s[1]))} ms (${starts.map((s) => s[1]).join(", ")})`
  )
  // BENCH_OPERATIONS_COLD_ONLY=1: only the cold start (to compare how the processes start).
  if (process.env.BENCH_OPERATIONS_COLD_ONLY === "1") return lines
  for (const lease of [15, 5]) {
    const rounds = yield* Effect.forEach(Array.from({ length: ROUNDS }), () => takeover(lease))
    lines.push(
      `RUNNER_LEASE_SECONDS=${lease}, one of three runners frozen: its shards taken over in median ${median(rounds.map((r) => r.movedMs))} ms ` +
        `(${rounds.map((r) => r.movedMs).join(", ")}); ${RUNS} runs started after the freeze all completed in ${median(rounds.map((r) => r.doneMs))} ms (${
          rounds.map((r) => r.doneMs).join(", ")
        })`
    )
    if (lease === 15) {
      lines.push(
        `GET /metrics on the gateway: median ${median(rounds.map((r) => r.scrapeMedian)).toFixed(1)} ms per scrape, p99 ${
          median(rounds.map((r) => r.scrapeP99)).toFixed(1)
        } ms, ${median(rounds.map((r) => r.bytes))} bytes`
      )
    }
  }
  return lines
})
