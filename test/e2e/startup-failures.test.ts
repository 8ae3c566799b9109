import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import * as net from "node:net"
import { tmpdir, userInfo } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { exec, exited, platformArgs, probe, sleep, type Started, startProcess, waitHealthy } from "../support/Processes.js"
import { ADMIN_URL, testDatabase } from "../support/TestDatabase.js"

const repo = path.resolve(import.meta.dirname, "../..")

/** The platform as `npm start` runs it, with only this environment. */
const platform = (env: Record<string, string>) =>
  startProcess(process.execPath, [...platformArgs], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env }
  })

const madeDirs: Array<string> = []
// A directory still mounted (the disk-full case's tmpfs, unmounted lazily) is left where it is.
afterAll(() => Promise.all(madeDirs.map((dir) => rm(dir, { recursive: true, force: true }).catch(() => undefined))))

/** Reachable by `postgres` when we run as root, so a cluster made here stays here (and goes with the directory, after the file). */
const dataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "bp-fail-"))
  chmodSync(dir, 0o755)
  madeDirs.push(dir)
  return dir
}

/** The start fails: a non-zero exit and exactly one `error:` line naming cause and fix, no stack trace. */
const failsWith = (started: Started, ...expected: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const code = yield* exited(started, 90)
    const output = started.output()
    assert.notStrictEqual(code, 0, output)
    const errors = output.split("\n").filter((line) => line.startsWith("error: "))
    assert.strictEqual(errors.length, 1, output)
    for (const text of expected) assert.include(errors[0], text, output)
    assert.notMatch(output, /\n\s+at .+:\d+:\d+/, "no stack trace")
    assert.notInclude(output, "UnknownException")
    assert.notInclude(output, "An unknown error occurred")
    return errors[0]
  })

/** Holds a loopback port for the duration of the scope. */
const occupiedPort = Effect.acquireRelease(
  Effect.async<net.Server>((resume) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.sync(() => server.close())
).pipe(Effect.map((server) => (server.address() as net.AddressInfo).port))

const reachable = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`

describe("startup failures: one clear line and a non-zero exit", () => {
  it.live("every malformed configuration value is listed at once", () =>
    Effect.gen(function*() {
      const line = yield* failsWith(
        platform({ PORT: "abc", CREDENTIALS_KEY: "c2hvcnQ=", ROLE: "boss", LLM_MODELS: "good,bad:9:1", DATABASE_POOL_SIZE: "1", DATA_DIR: dataDir() }),
        "Configuration is invalid",
        "PORT",
        "DATABASE_POOL_SIZE: must be an integer from 2 to 1000",
        "CREDENTIALS_KEY: must be 32 random bytes in base64",
        "ROLE",
        "LLM_MODELS",
        "bad:9:1"
      )
      assert.notInclude(line, "good,")
    }), 60_000)

  it.scoped("internal RPC is never served without its token: ROLE=services needs INTERNAL_RPC_TOKEN, and so does AUTH_RPC_URL", () =>
    Effect.gen(function*() {
      const db = yield* testDatabase
      yield* failsWith(
        platform({ ROLE: "services", DATABASE_URL: db.url, PORT: String(yield* freePort), DATA_DIR: dataDir() }),
        "ROLE=services serves internal RPC and needs INTERNAL_RPC_TOKEN"
      )
      yield* failsWith(
        platform({ AUTH_RPC_URL: "http://127.0.0.1:9/internal/rpc/auth", PORT: String(yield* freePort), DATA_DIR: dataDir() }),
        "AUTH_RPC_URL needs INTERNAL_RPC_TOKEN"
      )
    }), 60_000)

  it.scoped("the gateway's port is already taken", () =>
    Effect.gen(function*() {
      const port = yield* occupiedPort
      const db = yield* testDatabase
      yield* failsWith(
        platform({ PORT: String(port), DATABASE_URL: db.url, DATA_DIR: dataDir() }),
        `Port ${port} on 127.0.0.1 is already in use`,
        "set PORT"
      )
    }), 60_000)

  it.live("DATABASE_URL does not answer: retried with a log line per attempt, then given up", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const started = platform({ DATABASE_URL: reachable(port), STARTUP_TIMEOUT_SECONDS: "3", PORT: String(yield* freePort), DATA_DIR: dataDir() })
      yield* failsWith(started, `PostgreSQL at 127.0.0.1:${port} did not answer within 3 s`, "ECONNREFUSED", "DATABASE_URL")
      assert.isAtLeast(started.output().split("Waiting for PostgreSQL").length - 1, 2, started.output())
    }), 60_000)

  it.scoped("REDIS_URL does not answer", () =>
    Effect.gen(function*() {
      const db = yield* testDatabase
      const port = yield* freePort
      yield* failsWith(
        platform({
          DATABASE_URL: db.url,
          REDIS_URL: `redis://127.0.0.1:${port}`,
          STARTUP_TIMEOUT_SECONDS: "2",
          PORT: String(yield* freePort),
          DATA_DIR: dataDir()
        }),
        `Redis at 127.0.0.1:${port} did not answer within 2 s`,
        "REDIS_URL"
      )
    }), 60_000)

  it.scoped("the embedded PostgreSQL's port is taken", () =>
    Effect.gen(function*() {
      const port = yield* occupiedPort
      yield* failsWith(
        platform({ EMBEDDED_POSTGRES_PORT: String(port), PORT: String(yield* freePort), DATA_DIR: dataDir() }),
        `Port ${port} for the embedded PostgreSQL is already in use`,
        "EMBEDDED_POSTGRES_PORT"
      )
    }), 90_000)

  it.live("the embedded PostgreSQL cannot use its directory (permission denied)", () =>
    Effect.gen(function*() {
      const dir = dataDir()
      if (userInfo().uid === 0) {
        // The cluster's recorded place sits inside root's private directory, out of reach of `postgres`.
        chmodSync(dir, 0o700)
        writeFileSync(path.join(dir, "pg-location"), path.join(dir, "private", "pg"))
        yield* failsWith(platform({ DATA_DIR: dir, PORT: String(yield* freePort) }), "permission denied", "'postgres'")
      } else {
        yield* failsWith(platform({ DATA_DIR: "/root/bp-data", PORT: String(yield* freePort) }), "DATA_DIR /root/bp-data cannot be written", "EACCES")
      }
    }), 90_000)

  it.scoped("the embedded PostgreSQL has no disk space", () =>
    Effect.gen(function*() {
      const dir = dataDir()
      const mounted = yield* Effect.promise(() => exec("mount", ["-t", "tmpfs", "-o", "size=6m", "tmpfs", dir]).then(() => true, () => false))
      if (!mounted) {
        // Without the right to mount a small filesystem, the unit test of the classification covers this case.
        process.stdout.write("[startup failures] cannot mount a tmpfs here: the disk-full start was not tried\n")
        return
      }
      yield* Effect.addFinalizer(() => Effect.promise(() => exec("umount", ["-l", dir]).catch(() => undefined)))
      yield* failsWith(platform({ DATA_DIR: dir, PORT: String(yield* freePort) }), "no disk space left", "DATA_DIR")
    }), 90_000)
})

describe("requests while the platform starts", () => {
  it.scoped("are answered 503 STARTING (never left hanging) while it waits for its database, then 200", () =>
    Effect.gen(function*() {
      const pgPort = yield* freePort
      const port = yield* freePort
      const base = `http://127.0.0.1:${port}`
      const db = new URL((yield* testDatabase).url)
      const target = new URL(ADMIN_URL)
      db.host = `127.0.0.1:${pgPort}`
      const started = platform({ DATABASE_URL: db.toString(), STARTUP_TIMEOUT_SECONDS: "60", PORT: String(port), DATA_DIR: dataDir() })
      // The database appears a few seconds in: a forwarder opens on the port the platform waits for.
      const forwarder = net.createServer((socket) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname)
        socket.pipe(upstream).pipe(socket)
        socket.on("error", () => upstream.destroy())
        upstream.on("error", () => socket.destroy())
      })
      // Until the database is there, the platform answers 503 STARTING and never leaves a request hanging.
      const early: Array<unknown> = []
      while (early.filter((p) => p === 503).length < 5) {
        const result = yield* probe(`${base}/health`)
        early.push(result)
        assert.oneOf(result, ["refused", 503], JSON.stringify(early))
        if (result === 503) {
          const api = yield* Effect.promise(() =>
            fetch(`${base}/api/v1/workflow/workflows`, { signal: AbortSignal.timeout(2000) }).then(async (r) => ({
              status: r.status,
              body: (await r.json()) as { code?: string }
            }))
          )
          assert.deepInclude(api, { status: 503 })
          assert.strictEqual(api.body.code, "STARTING")
        }
        yield* sleep(100)
      }
      assert.include(started.output(), "Waiting for PostgreSQL")
      forwarder.listen(pgPort, "127.0.0.1")
      const seen = yield* waitHealthy(base, started)
      assert.notInclude(seen, "timeout")
      const body = yield* Effect.promise(() => fetch(`${base}/api/v1/auth/users/me`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status))
      assert.strictEqual(body, 401, "after startup the API answers normally")
      started.child.kill("SIGTERM")
      yield* exited(started)
      forwarder.close()
    }), 120_000)
})
