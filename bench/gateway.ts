/**
 * Gateway and auth throughput on a real PostgreSQL (part of `npm run bench`).
 * Uses BENCH_DATABASE_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres) to create
 * and drop a database of its own. Figures go in bench/README.md.
 */
import { ConfigProvider, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { freePort } from "../platform/FreePort.js"
import { PlatformLive } from "../services/gateway/Platform.js"
import { benchDataDir } from "./support.js"

const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const admin = async (statement: string) => {
  const client = new pg.Client({ connectionString: ADMIN_URL })
  await client.connect()
  await client.query(statement).finally(() => client.end())
}

interface Case {
  readonly name: string
  readonly requests: number
  readonly send: () => Promise<Response>
}

const measure = async (c: Case, concurrency: number) => {
  const latencies: Array<number> = []
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < c.requests) {
      next++
      const t0 = performance.now()
      const res = await c.send()
      await res.arrayBuffer()
      if (!res.ok) throw new Error(`${c.name}: ${res.status}`)
      latencies.push(performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(2)
  return `${c.name.padEnd(28)} ${String(c.requests).padStart(6)} req  ${(c.requests / seconds).toFixed(0).padStart(6)} req/s  p50 ${pct(0.5)} ms  p99 ${
    pct(0.99)
  } ms`
}

const main = Effect.gen(function*() {
  const db = `bp_bench_${randomBytes(4).toString("hex")}`
  yield* Effect.acquireRelease(
    Effect.promise(() => admin(`CREATE DATABASE ${db}`)),
    () => Effect.promise(() => admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`))
  )
  const url = new URL(ADMIN_URL)
  url.pathname = `/${db}`
  const port = yield* freePort
  const dataDir = yield* benchDataDir
  const env = {
    DATABASE_URL: url.toString(),
    PORT: String(port),
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(32).toString("hex"),
    CREDENTIALS_KEY: randomBytes(32).toString("base64"),
    BOOTSTRAP_ADMIN_EMAIL: "bench@example.test",
    BOOTSTRAP_ADMIN_PASSWORD: "bench-password"
  }
  yield* Layer.build(
    PlatformLive.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
  )
  const base = `http://127.0.0.1:${port}`
  const json = { "content-type": "application/json" }
  const credentials = JSON.stringify({ email: env.BOOTSTRAP_ADMIN_EMAIL, password: env.BOOTSTRAP_ADMIN_PASSWORD })
  const lines = yield* Effect.promise(async () => {
    const login = await (await fetch(`${base}/api/v1/auth/login`, { method: "POST", headers: json, body: credentials })).json() as {
      access_token: string
    }
    const key = await (await fetch(`${base}/api/v1/auth/api-keys`, {
      method: "POST",
      headers: { ...json, authorization: `Bearer ${login.access_token}` },
      body: JSON.stringify({ name: "bench" })
    })).json() as { key: string }
    const cases: ReadonlyArray<Case> = [
      { name: "GET /health", requests: 5000, send: () => fetch(`${base}/health`) },
      {
        name: "GET /users/me (JWT)",
        requests: 5000,
        send: () => fetch(`${base}/api/v1/auth/users/me`, { headers: { authorization: `Bearer ${login.access_token}` } })
      },
      {
        name: "GET /users/me (API key)",
        requests: 5000,
        send: () => fetch(`${base}/api/v1/auth/users/me`, { headers: { "x-api-key": key.key } })
      },
      {
        name: "POST /login (scrypt)",
        requests: 200,
        send: () => fetch(`${base}/api/v1/auth/login`, { method: "POST", headers: json, body: credentials })
      }
    ]
    const out: Array<string> = []
    for (const c of cases) out.push(await measure(c, 16))
    return out
  })
  for (const line of lines) yield* Effect.log(line)
})

export const gatewayBench = Effect.scoped(main)
