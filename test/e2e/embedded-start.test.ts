import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { platformArgs } from "../support/Processes.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/** `npm start` (node dist/server/services/gateway/main.js) as a user runs it: no DATABASE_URL, no REDIS_URL, nothing but a data directory. */
const start = (dataDir: string, port: number) => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|REDIS_URL|JWT_SECRET|CREDENTIALS_KEY|SMTP_URL|PORT|HOST)$/.test(k)) env[k] = v
  }
  Object.assign(env, {
    DATA_DIR: dataDir,
    PORT: String(port),
    BOOTSTRAP_ADMIN_EMAIL: "first@admin.test",
    BOOTSTRAP_ADMIN_PASSWORD: "first-admin-password",
    SHUTDOWN_GRACE_SECONDS: "5"
  })
  const child = spawn(process.execPath, [...platformArgs], { env, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()))
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()))
  const closed = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  return { child, output: () => output, closed }
}

const waitHealthy = (port: number, proc: { output: () => string }) =>
  Effect.gen(function*() {
    for (let i = 0; i < 240; i++) {
      const ok = yield* Effect.promise(() =>
        fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) }).then((r) => r.status === 200, () => false)
      )
      if (ok) return
      yield* sleep(250)
    }
    return yield* Effect.dieMessage(`never became healthy:\n${proc.output()}`)
  })

/** Its exit code once it exited and its output was read to the end ('exit' may come before the last lines). */
const exited = (proc: { readonly closed: Promise<number | null> }) => Effect.promise(() => proc.closed).pipe(Effect.timeout("30 seconds"))

const login = (port: number) =>
  Effect.promise(() =>
    fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "first@admin.test", password: "first-admin-password" })
    }).then((r) => r.status)
  )

/** A request whose body is still arriving while the server is told to stop. */
const slowRequest = (port: number) => {
  const body = JSON.stringify({ email: "first@admin.test", password: "first-admin-password" })
  let status: Promise<number> = Promise.resolve(0)
  const req = http.request({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: "/api/v1/auth/login",
    headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
  })
  status = new Promise((resolve, reject) => {
    req.on("response", (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", reject)
  })
  req.write(body.slice(0, 10))
  return { finish: () => req.end(body.slice(10)), status: () => status }
}

describe("npm start with no configuration", () => {
  it.live("runs on an embedded PostgreSQL kept in DATA_DIR, drains in-flight requests and stops cleanly", () =>
    Effect.gen(function*() {
      const dataDir = mkdtempSync(path.join(tmpdir(), "bp-embedded-"))
      // PostgreSQL runs as the `postgres` user when we are root: it must reach the directory.
      chmodSync(dataDir, 0o755)
      const port = yield* freePort

      const first = start(dataDir, port)
      yield* waitHealthy(port, first)
      assert.strictEqual(yield* login(port), 200)
      assert.isTrue(existsSync(path.join(dataDir, "pg", "PG_VERSION")))
      assert.isTrue(existsSync(path.join(dataDir, "jwt_secret")))

      const inflight = slowRequest(port)
      yield* sleep(300)
      first.child.kill("SIGTERM")
      yield* sleep(500)
      inflight.finish()
      assert.strictEqual(yield* Effect.promise(() => inflight.status()), 200, first.output())
      assert.strictEqual(yield* exited(first), 0, first.output())
      assert.include(first.output(), "Embedded PostgreSQL stopped")
      assert.isFalse(existsSync(path.join(dataDir, "pg", "postmaster.pid")))

      // The data survives a restart: the same admin signs in, nobody is bootstrapped twice.
      const second = start(dataDir, port)
      yield* waitHealthy(port, second)
      assert.strictEqual(yield* login(port), 200)
      assert.notInclude(second.output(), "Created bootstrap admin")
      second.child.kill("SIGINT")
      assert.strictEqual(yield* exited(second), 0, second.output())
      // The cluster (about 65 MB) goes with the directory.
      rmSync(dataDir, { recursive: true, force: true })
    }), 180_000)
})
