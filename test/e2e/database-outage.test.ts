import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { chmodSync, mkdtempSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { exited, platformArgs, sleep, startProcess, waitHealthy } from "../support/Processes.js"
import { platformEnv, processPlatform, waitTerminal } from "../support/ProcessPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { ADMIN_URL, migratedDatabase } from "../support/TestDatabase.js"

const repo = path.resolve(import.meta.dirname, "../..")

/** A TCP forwarder to PostgreSQL that can be cut (no listener, every connection dropped) and restored. */
const forwarder = (port: number) => {
  const target = new URL(ADMIN_URL)
  const sockets = new Set<net.Socket>()
  let server: net.Server | undefined
  const open = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((socket) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname)
        sockets.add(socket).add(upstream)
        socket.pipe(upstream).pipe(socket)
        const drop = () => {
          socket.destroy()
          upstream.destroy()
          sockets.delete(socket)
          sockets.delete(upstream)
        }
        socket.on("error", drop).on("close", drop)
        upstream.on("error", drop).on("close", drop)
      })
      server.listen(port, "127.0.0.1", () => resolve())
    })
  const cut = () =>
    new Promise<void>((resolve) => {
      server?.close(() => resolve())
      for (const s of sockets) s.destroy()
      sockets.clear()
    })
  return { open, cut }
}

/** The suite's database behind a forwarder that the test can cut. */
const proxiedDatabase = Effect.gen(function*() {
  const db = new URL((yield* migratedDatabase).url)
  const pgPort = yield* freePort
  db.host = `127.0.0.1:${pgPort}`
  const proxy = forwarder(pgPort)
  yield* Effect.promise(() => proxy.open())
  return { db, proxy }
})

interface Answer {
  readonly status: number
  readonly retryAfter: string | null
  readonly body: Record<string, unknown>
}

const call = (base: string, pathname: string, init: RequestInit = {}) =>
  Effect.promise(() =>
    fetch(`${base}${pathname}`, { ...init, signal: AbortSignal.timeout(8000) }).then(
      async (r): Promise<Answer> => ({
        status: r.status,
        retryAfter: r.headers.get("retry-after"),
        body: await r.json().catch(() => ({})) as Record<string, unknown>
      }),
      (e: unknown): Answer => ({ status: 0, retryAfter: null, body: { error: String(e) } })
    )
  )

describe("a database outage", () => {
  it.scoped("is answered 503 UNAVAILABLE with Retry-After (never 500, never a hang), logged once, and the platform recovers", () =>
    Effect.gen(function*() {
      const { db, proxy } = yield* proxiedDatabase
      const port = yield* freePort
      const base = `http://127.0.0.1:${port}`
      const dataDir = mkdtempSync(path.join(tmpdir(), "bp-outage-"))
      chmodSync(dataDir, 0o755)
      const started = startProcess(process.execPath, [...platformArgs], {
        cwd: repo,
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: process.env.HOME ?? "/tmp",
          DATABASE_URL: db.toString(),
          PORT: String(port),
          DATA_DIR: dataDir,
          BOOTSTRAP_ADMIN_EMAIL: "outage@admin.test",
          BOOTSTRAP_ADMIN_PASSWORD: "outage-password"
        }
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => started.child.kill("SIGKILL")))
      yield* waitHealthy(base, started)
      const login = () =>
        call(base, "/api/v1/auth/login", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "outage@admin.test", password: "outage-password" })
        })
      const token = (yield* login()).body.access_token as string
      const list = () => call(base, "/api/v1/workflow/workflows", { headers: { authorization: `Bearer ${token}` } })
      assert.strictEqual((yield* list()).status, 200)

      yield* Effect.promise(() => proxy.cut())
      for (let i = 0; i < 10; i++) {
        for (const answer of [yield* list(), yield* login()]) {
          assert.strictEqual(answer.status, 503, JSON.stringify(answer))
          assert.strictEqual(answer.body.code, "UNAVAILABLE")
          assert.strictEqual(answer.retryAfter, "5")
        }
        assert.strictEqual((yield* call(base, "/ready")).status, 503, "not ready without its database")
        assert.strictEqual((yield* call(base, "/health")).status, 200, "but live: nothing to restart")
      }
      const logged = started.output().split("The database is unavailable").length - 1
      assert.strictEqual(logged, 1, started.output())
      assert.notInclude(started.output(), "Unhandled request failure")
      // Background loops that fail while the database is away say so once, not every 100 ms.
      assert.isAtMost(started.output().split("Could not read messages from storage").length - 1, 1)

      yield* Effect.promise(() => proxy.open())
      let back = 0
      for (let i = 0; i < 100 && back !== 200; i++) {
        back = (yield* list()).status
        if (back !== 200) yield* sleep(100)
      }
      assert.strictEqual(back, 200)
      started.child.kill("SIGTERM")
      yield* exited(started)
      yield* Effect.promise(() => proxy.cut())
    }), 120_000)

  it.scoped(
    "a 10 s outage under load (every connection dropped, then refused, as an immediate restart does): every run accepted before or after it finishes once, none is lost",
    () =>
      Effect.gen(function*() {
        const model = yield* ScriptedModel
        model.setScript(() => ({ text: "ok", delayMs: 30 }))
        const { db, proxy } = yield* proxiedDatabase
        const port = yield* freePort
        const platform = yield* processPlatform({
          ...platformEnv("restart", db.toString(), model.baseUrl),
          PORT: String(port),
          DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-restart-"))
        })
        yield* platform.start
        const { api } = platform
        const token = (yield* api("POST", "/api/v1/auth/login", { email: "restart@admin.test", password: "restart-admin-password" })).body
          .access_token as string
        const step = (id: string) => ({ id, type: "agent", name: id, agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: id } })
        const wf = (yield* api("POST", "/api/v1/workflow/workflows", { name: "Under load" }, token)).body.id as string
        yield* api("PATCH", `/api/v1/workflow/workflows/${wf}`, {
          dag_definition: { nodes: [step("a"), step("b"), step("c")], edges: [{ from: "a", to: "b" }, { from: "b", to: "c" }] }
        }, token)
        assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${wf}/publish`, undefined, token)).status, 200)

        // Starts keep coming for 16 s; the database goes away 3 s in, for 10 s.
        const accepted: Array<string> = []
        const refused: Array<number> = []
        const load = Effect.gen(function*() {
          const until = Date.now() + 16_000
          while (Date.now() < until) {
            const r = yield* api("POST", `/api/v1/workflow/workflows/${wf}/run`, { input_params: {} }, token)
            if (r.status === 202) accepted.push(r.body.id as string)
            else refused.push(r.status)
            yield* sleep(50)
          }
        })
        const outage = Effect.gen(function*() {
          yield* sleep(3_000)
          yield* Effect.promise(() => proxy.cut())
          yield* sleep(10_000)
          yield* Effect.promise(() => proxy.open())
        })
        yield* Effect.all([Effect.all([load, load, load], { concurrency: 3 }), outage], { concurrency: 2 })
        assert.isAbove(accepted.length, 50, "runs were accepted around the outage")
        assert.isAbove(refused.length, 0, "starts during the outage were refused")
        assert.deepStrictEqual([...new Set(refused)], [503], "a start the database cannot take is a 503, never a 500")
        for (const id of accepted) assert.strictEqual((yield* waitTerminal(api, token, id, 60_000)).status, "completed", id)
        assert.strictEqual(new Set(accepted).size, accepted.length)
      }).pipe(Effect.provide(ScriptedModel.layer)),
    120_000
  )
})
