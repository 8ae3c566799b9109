import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { faultProxy } from "../support/FaultProxy.js"
import { platformEnv, processPlatform, waitTerminal } from "../support/ProcessPlatform.js"
import { ownRedis } from "../support/RedisServer.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"
import { redisServerAvailable } from "../support/TestServices.js"
import { respondNode } from "../support/Workflows.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/** How long an effect took, with its value. */
const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.all([Effect.sync(() => Date.now()), effect]), ([start, value]) => ({ value, ms: Date.now() - start }))

/**
 * A TCP fault proxy between the platform and each of PostgreSQL, Redis and the model server
 * (latency, stalls, resets, half-open peers): every call honours its time limit, nothing hangs
 * past it, runs retry or fail as documented, and everything recovers when the network does.
 */
layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "150 seconds" })("network faults", (it) => {
  it.scoped("latency, stalls, resets and half-open connections to the model, Redis and PostgreSQL", () =>
    Effect.gen(function*() {
      const model = yield* ScriptedModel
      const db = yield* migratedDatabase
      const dbUrl = new URL(db.url)
      const modelUrl = new URL(model.baseUrl)
      const pgProxy = yield* faultProxy({ host: dbUrl.hostname, port: Number(dbUrl.port || 5432) })
      // A Redis of the test's own behind the proxy (the machine's may not run one); without
      // redis-server the platform runs on the PostgreSQL bus and the Redis part is skipped.
      const redis = redisServerAvailable ? yield* ownRedis : undefined
      const redisProxy = redis === undefined ? undefined : yield* faultProxy({ host: "127.0.0.1", port: Number(new URL(redis.url).port) })
      const modelProxy = yield* faultProxy({ host: modelUrl.hostname, port: Number(modelUrl.port) })
      dbUrl.host = `127.0.0.1:${pgProxy.port}`
      modelUrl.host = `127.0.0.1:${modelProxy.port}`
      const port = yield* freePort
      const platform = yield* processPlatform({
        ...platformEnv("faults", dbUrl.toString(), modelUrl.toString()),
        PORT: String(port),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-faults-")),
        ...(redisProxy === undefined
          ? { EVENT_BUS: "postgres" }
          : { REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`, REDIS_KEY_PREFIX: `faults-${port}:`, EVENT_BUS: "redis" }),
        LLM_TIMEOUT_SECONDS: "1",
        DATABASE_QUERY_TIMEOUT_SECONDS: "3"
      })
      yield* platform.start
      const { api } = platform
      const signIn = (password = "faults-admin-password") => api("POST", "/api/v1/auth/login", { email: "faults@admin.test", password })
      const token = (yield* signIn()).body.access_token as string
      model.setScript((r) => ({ text: `${r.messages[0]?.content ?? ""} done`, chunks: ["x ", "y"] }))
      const wf = (yield* api("POST", "/api/v1/workflow/workflows", { name: "Faults" }, token)).body.id as string
      yield* api("PATCH", `/api/v1/workflow/workflows/${wf}`, {
        dag_definition: { nodes: [respondNode("a", "A"), respondNode("b", "B")], edges: [{ from: "a", to: "b" }] }
      }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${wf}/publish`, undefined, token)).status, 200)
      const run = Effect.gen(function*() {
        const started = yield* api("POST", `/api/v1/workflow/workflows/${wf}/run`, { input_params: {} }, token)
        assert.strictEqual(started.status, 202, started.text)
        return yield* waitTerminal(api, token, started.body.id as string, 60_000)
      })

      // The model server: latency is only slower; a reset connection is retried; a stalled or
      // half-open model call fails within LLM_TIMEOUT_SECONDS (1 s here) and its three retries.
      modelProxy.set("latency", 200)
      assert.strictEqual((yield* run).status, "completed")
      modelProxy.set("reset")
      const refusedBefore = modelProxy.refused()
      const recovering = yield* Effect.fork(run)
      // Back to pass once the run's model call has met a reset, however long the start took.
      for (let i = 0; i < 300 && modelProxy.refused() === refusedBefore; i++) yield* sleep(20)
      assert.isAbove(modelProxy.refused(), refusedBefore, "the run's model call met a reset")
      yield* sleep(100)
      modelProxy.set("pass")
      assert.strictEqual((yield* Fiber.join(recovering)).status, "completed", "a reset model call is retried")
      for (const fault of ["stall", "blackhole"] as const) {
        modelProxy.set(fault)
        const failed = yield* timed(run)
        assert.strictEqual(failed.value.status, "failed", fault)
        assert.match(JSON.stringify(failed.value.error), /timed out/i, fault)
        assert.isBelow(failed.ms, 12_000, `${fault}: 4 tries of 1 s and the backoff between them`)
      }
      modelProxy.set("pass")

      // Redis half-open: a sign-in waits for one command timeout at most, runs do not wait on it.
      if (redisProxy !== undefined) {
        redisProxy.set("blackhole")
        const signInRedis = yield* timed(signIn())
        assert.strictEqual(signInRedis.value.status, 200)
        assert.isBelow(signInRedis.ms, 3_000, "one Redis command timeout (1 s), not one per check")
        const runRedis = yield* timed(run)
        assert.strictEqual(runRedis.value.status, "completed")
        redisProxy.set("pass")
      }

      // PostgreSQL half-open: requests that read it are 503 within DATABASE_QUERY_TIMEOUT_SECONDS (3 s here;
      // a token's membership comes from memory for AUTH_CACHE_SECONDS, so the request reads AI Employees),
      // /ready within its 2 s (/health, liveness, stays 200); a run in flight is not lost; all recovers when the network does.
      model.setScript((r) => ({ text: `${r.messages[0]?.content ?? ""} done`, chunks: ["x ", "y"], delayMs: 700 }))
      const inFlight = (yield* api("POST", `/api/v1/workflow/workflows/${wf}/run`, { input_params: {} }, token)).body.id as string
      yield* sleep(200)
      pgProxy.set("blackhole")
      const during = yield* timed(api("GET", "/api/v1/workflow/workflows", undefined, token))
      assert.strictEqual(during.value.status, 503, during.value.text)
      assert.isBelow(during.ms, 9_000)
      const health = yield* timed(api("GET", "/ready"))
      assert.strictEqual(health.value.status, 503)
      assert.strictEqual(health.value.body.code, "DATABASE_UNAVAILABLE")
      assert.isBelow(health.ms, 3_500)
      assert.strictEqual((yield* api("GET", "/health")).status, 200)
      pgProxy.set("pass")
      model.setScript((r) => ({ text: `${r.messages[0]?.content ?? ""} done`, chunks: ["x ", "y"] }))
      let after = yield* timed(api("GET", "/api/v1/workflow/workflows", undefined, token))
      for (let i = 0; i < 20 && after.value.status !== 200; i++) after = yield* timed(api("GET", "/api/v1/workflow/workflows", undefined, token))
      assert.strictEqual(after.value.status, 200)
      assert.isBelow(after.ms, 2_000, "no request waits on a dead pooled connection after the recovery")
      assert.strictEqual((yield* run).status, "completed")
      assert.strictEqual((yield* waitTerminal(api, token, inFlight, 60_000)).status, "completed", "the run in flight during the outage is not lost")

      // PostgreSQL resets every connection: requests fail cleanly, then all recovers.
      pgProxy.set("reset")
      const reset = yield* timed(api("GET", "/api/v1/workflow/workflows", undefined, token))
      assert.include([503, 200], reset.value.status)
      assert.isBelow(reset.ms, 7_000)
      pgProxy.set("pass")
      assert.strictEqual((yield* run).status, "completed")
      const quick = yield* Effect.forEach(Array.from({ length: 20 }), () => timed(api("GET", "/api/v1/auth/users/me", undefined, token)), { concurrency: 5 })
      assert.deepStrictEqual([...new Set(quick.map((q) => q.value.status))], [200])
      assert.isBelow(Math.max(...quick.map((q) => q.ms)), 2_000)
    }), 140_000)
})
