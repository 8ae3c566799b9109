import { ConfigProvider, Effect, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { freePort } from "../platform/FreePort.js"
import { serverEntry } from "../scripts/build-server.mjs"
import { PlatformLive } from "../services/gateway/Platform.js"

export const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const admin = async (statement: string) => {
  const client = new pg.Client({ connectionString: ADMIN_URL })
  await client.connect()
  await client.query(statement).finally(() => client.end())
}

/** A database of the benchmark's own, dropped with the scope (kept, and named in the log, with BENCH_KEEP=1: to look into it after). */
export const benchDatabase = Effect.acquireRelease(
  Effect.gen(function*() {
    const name = `bp_bench_${randomBytes(4).toString("hex")}`
    yield* Effect.promise(() => admin(`CREATE DATABASE ${name}`))
    const url = new URL(ADMIN_URL)
    url.pathname = `/${name}`
    return { name, url: url.toString() }
  }),
  ({ name }) =>
    process.env.BENCH_KEEP === "1"
      ? Effect.log(`BENCH_KEEP: the database ${name} is kept`)
      : Effect.promise(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
)

const STREAM = [
  { choices: [{ index: 0, delta: { content: "ok" } }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  { choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }
].map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") + "data: [DONE]\n\n"

/** An OpenAI-compatible server that answers every chat completion at once (a streamed reply). */
export const instantModel = Effect.acquireRelease(
  Effect.gen(function*() {
    const port = yield* freePort
    const server: Server = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        // the whole stream in one write, as the peers' instant model answers in one
        res.writeHead(200, { "content-type": "text/event-stream", "content-length": Buffer.byteLength(STREAM) })
        res.end(STREAM)
      })
    })
    yield* Effect.async<void>((resume) => void server.listen(port, "127.0.0.1", () => resume(Effect.void)))
    return { server, baseUrl: `http://127.0.0.1:${port}/v1` }
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

/**
 * The same model in a process of its own: a benchmark whose load saturates its own process (a
 * flood of clients) would otherwise slow the model's answers, which a real provider does not.
 */
export const instantModelProcess = Effect.gen(function*() {
  const port = yield* freePort
  const code = `const body = ${JSON.stringify(STREAM)}
require("node:http").createServer((req, res) => {
  req.resume()
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream", "content-length": Buffer.byteLength(body) })
    res.end(body)
  })
}).listen(Number(process.argv[1]), "127.0.0.1", () => process.stdout.write("ready\\n"))`
  yield* Effect.acquireRelease(
    Effect.async<ChildProcess>((resume) => {
      const child = spawn(process.execPath, ["-e", code, String(port)], { stdio: ["ignore", "pipe", "inherit"] })
      child.stdout.once("data", () => resume(Effect.succeed(child)))
    }),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )
  return { baseUrl: `http://127.0.0.1:${port}/v1` }
})

/** A platform's DATA_DIR, removed with the scope (after the platform, which was made after it). */
export const benchDataDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(path.join(tmpdir(), "bp-bench-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** The platform in this process on the benchmark's database. */
export const benchPlatform = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const port = yield* freePort
    const dataDir = yield* benchDataDir
    const context = yield* Layer.build(
      PlatformLive.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(
        new Map(Object.entries({
          PORT: String(port),
          DATA_DIR: dataDir,
          JWT_SECRET: randomBytes(32).toString("hex"),
          CREDENTIALS_KEY: randomBytes(32).toString("base64"),
          BOOTSTRAP_ADMIN_EMAIL: "bench@example.test",
          BOOTSTRAP_ADMIN_PASSWORD: "bench-password",
          ...env
        }))
      ))))
    )
    const base = `http://127.0.0.1:${port}`
    return { base, token: yield* signIn(base, "bench@example.test", "bench-password"), context }
  })

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** BENCH_CHILD_NODE_ARGS: more of node's arguments for the platform's processes (V8 flags NODE_OPTIONS refuses, such as --single-threaded-gc). */
const childNodeArgs = [
  ...(process.env.BENCH_CHILD_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== ""),
  ...(process.env.BENCH_HEAP_SNAPSHOTS === "1" ? ["--heapsnapshot-signal=SIGUSR2"] : [])
]

/**
 * node's arguments for the platform as npm start runs it (compiled by bench/run.ts before any
 * bench); BENCH_FROM_SOURCES=1 runs the TypeScript through tsx instead, for comparison.
 */
export const platformArgs: ReadonlyArray<string> = process.env.BENCH_FROM_SOURCES === "1"
  ? ["--max-semi-space-size=32", ...childNodeArgs, "--import", "tsx", path.join(ROOT, "services", "gateway", "main.ts")]
  : ["--max-semi-space-size=32", ...childNodeArgs, "--enable-source-maps", serverEntry]

const childNodeOptions = process.env.BENCH_CHILD_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_CHILD_NODE_OPTIONS } : {}

/** BENCH_CHILD_ENV="NAME=value NAME2=value2": more environment for the platform's processes (an experiment's switch). */
const childEnv: Record<string, string> = Object.fromEntries(
  (process.env.BENCH_CHILD_ENV ?? "").split(" ").filter((pair) => pair.includes("=")).map((
    pair
  ) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)])
)

const spawnPlatform = (env: Record<string, string>) =>
  Effect.flatMap(benchDataDir, (dataDir) =>
    Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [...platformArgs], {
          cwd: ROOT,
          // BENCH_CHILD_NODE_OPTIONS: node's options for the platform's processes only (a preload such as bench/loop-stalls.cjs).
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATA_DIR: dataDir, ...childNodeOptions, ...childEnv, ...env },
          // BENCH_CHILD_STDOUT=1: the platform's standard output too (V8's --trace-gc lines go there).
          stdio: ["ignore", process.env.BENCH_CHILD_STDOUT === "1" ? "inherit" : "ignore", "inherit"]
        })
      ),
      (child: ChildProcess) =>
        Effect.async<void>((resume) => {
          if (child.exitCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
          child.kill("SIGTERM")
        })
    ))

/**
 * The platform in processes of its own, as in production where clients and the model provider
 * are elsewhere: one `ROLE=all` process, or (`runners` > 0) a gateway and that many runners. Their
 * pids (the front first), the front's address and the bootstrap admin's token.
 */
export const childPlatform = (env: Record<string, string>, runners = 0) =>
  Effect.gen(function*() {
    const port = yield* freePort
    // Every process knows the first admin: whichever reaches an empty database first creates it.
    const common = {
      JWT_SECRET: randomBytes(32).toString("hex"),
      CREDENTIALS_KEY: randomBytes(32).toString("base64"),
      LOG_LEVEL: "warning",
      BOOTSTRAP_ADMIN_EMAIL: "bench@example.test",
      BOOTSTRAP_ADMIN_PASSWORD: "bench-password",
      ...env
    }
    const workers = yield* Effect.forEach(Array.from({ length: runners }), () =>
      Effect.flatMap(Effect.all([freePort, freePort]), ([httpPort, runnerPort]) =>
        spawnPlatform({ ...common, ROLE: "runners", PORT: String(httpPort), RUNNER_PORT: String(runnerPort) })))
    const front = yield* spawnPlatform({
      ...common,
      ROLE: runners > 0 ? "gateway" : "all",
      PORT: String(port)
    })
    const base = `http://127.0.0.1:${port}`
    while (
      !(yield* Effect.promise(() =>
        fetch(`${base}/ready`).then((r) =>
          r.ok, () => false)
      ))
    ) yield* Effect.sleep("200 millis")
    const token = yield* signIn(base, "bench@example.test", "bench-password")
    return { base, token, pids: [front, ...workers].map((c) => c.pid ?? 0) }
  })

/** An access token for this user of the benchmark's server. */
export const signIn = (base: string, email: string, password: string) =>
  Effect.promise(() =>
    fetch(`${base}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password })
    }).then((r) => r.json() as Promise<{ access_token: string }>)
  ).pipe(Effect.map((login) => login.access_token))

export const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

/** A JSON call on the benchmark's server with the admin's token. */
export const json = (base: string, token: string, method: string, path: string, body?: unknown) =>
  Effect.promise(() =>
    fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    }).then(async (r) => {
      const body = await r.json() as Record<string, unknown>
      // A benchmark that measures failed requests measures nothing: stop at the first one.
      if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(body)}`)
      return body
    })
  )

/** A published AI Employee with this DAG on the benchmark's server: its id and tenant. */
export const publishedBenchWorkflow = (base: string, token: string, dag: unknown) =>
  Effect.gen(function*() {
    const w = yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name: "Bench" })
    const workflowId = w.id as string
    yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${workflowId}`, { dag_definition: dag })
    yield* json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/publish`)
    return { workflowId, tenantId: w.tenant_id as string }
  })
