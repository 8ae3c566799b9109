import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Ref } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { freePort } from "../../platform/FreePort.js"
import { platformEnv, processPlatform, waitTerminal } from "../support/ProcessPlatform.js"
import { ownRedis } from "../support/RedisServer.js"
import { parseSse } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"
import { redisServerAvailable } from "../support/TestServices.js"
import { respondNode } from "../support/Workflows.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))
const PREFIX = "outage:"

/**
 * Redis SIGKILLed under load and started again (README "Redis"): runs are never lost (their journal
 * is PostgreSQL), starts keep being answered, a stream opened before or during the outage reads on
 * by its 1 s poll and misses nothing, rate limits fail open while Redis is away and hold again once
 * it is back, and channels subscribed while it was away are subscribed again.
 */
layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "150 seconds" })("Redis outage", (it) => {
  // Without redis-server (GlobalSetup says so on the run's first lines) there is no Redis to kill.
  it.scoped.skipIf(!redisServerAvailable)(
    "Redis killed under load: no run lost, no 5xx, streams complete by polling, limits fail open and come back",
    () =>
      Effect.gen(function*() {
        const model = yield* ScriptedModel
        const { url } = yield* migratedDatabase
        const redis = yield* ownRedis
        const port = yield* freePort
        const platform = yield* processPlatform({
          ...platformEnv("redis", url, model.baseUrl),
          PORT: String(port),
          DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-redis-")),
          REDIS_URL: redis.url,
          REDIS_KEY_PREFIX: PREFIX,
          EVENT_BUS: "redis"
        })
        yield* platform.start
        const { api, baseUrl } = platform
        const login = (password: string) => api("POST", "/api/v1/auth/login", { email: "redis@admin.test", password })
        const token = (yield* login("redis-admin-password")).body.access_token as string
        // Each step streams three chunks 150 ms apart: a run takes about a second.
        model.setScript((r) => ({ text: `${r.messages[0]?.content ?? ""} done`, chunks: ["a ", "b ", "c"], delayMs: 150 }))
        const wf = (yield* api("POST", "/api/v1/workflow/workflows", { name: "Through an outage" }, token)).body.id as string
        yield* api("PATCH", `/api/v1/workflow/workflows/${wf}`, {
          dag_definition: { nodes: [respondNode("a", "A"), respondNode("b", "B")], edges: [{ from: "a", to: "b" }] }
        }, token)
        assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${wf}/publish`, undefined, token)).status, 200)
        const startRun = api("POST", `/api/v1/workflow/workflows/${wf}/run`, { input_params: {} }, token)
        // A run that waits on an approval keeps its stream open across the outage.
        const waits = (yield* api("POST", "/api/v1/workflow/workflows", { name: "Waits" }, token)).body.id as string
        yield* api("PATCH", `/api/v1/workflow/workflows/${waits}`, {
          dag_definition: { nodes: [{ ...respondNode("h", "H"), hitl: { type: "approval", prompt: "Go?", assignee: { role: "builder" } } }], edges: [] }
        }, token)
        assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${waits}/publish`, undefined, token)).status, 200)
        const paused = (yield* api("POST", `/api/v1/workflow/workflows/${waits}/run`, { input_params: {} }, token)).body.id as string

        // Load: a run started every 50 ms for the whole test.
        const started = yield* Ref.make<Array<{ status: number; id?: string }>>([])
        const stop = yield* Ref.make(false)
        const load = yield* Effect.fork(Effect.gen(function*() {
          while (!(yield* Ref.get(stop))) {
            const r = yield* startRun
            yield* Ref.update(started, (all) => [...all, { status: r.status, id: r.body?.id }])
            yield* sleep(50)
          }
        }))
        const follow = (runId: string) =>
          Effect.promise(() =>
            fetch(`${baseUrl}/api/v1/workflow/runs/${runId}/stream`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(60_000) })
              .then(async (r) => ({ status: r.status, events: parseSse(await r.text()) }))
          )
        const before = (yield* startRun).body.id as string
        const streamBefore = yield* Effect.fork(follow(before))
        yield* sleep(300)

        yield* redis.kill
        const during = (yield* startRun).body.id as string
        const streamDuring = yield* Effect.fork(follow(during))
        const streamPaused = yield* Effect.fork(follow(paused))
        // Sign-in throttling is not enforced while Redis is away: six wrong passwords, then the right one.
        for (let i = 0; i < 6; i++) assert.strictEqual((yield* login("wrong-password")).status, 401)
        assert.strictEqual((yield* login("redis-admin-password")).status, 200)
        yield* sleep(2500)

        yield* redis.start
        // The stream opened while Redis was away is subscribed again once it is back.
        const channel = `${PREFIX}bus:run:${paused}`
        let subscribers = 0
        for (let i = 0; i < 40 && subscribers === 0; i++) {
          yield* sleep(100)
          const { stdout } = yield* Effect.promise(() =>
            promisify(execFile)("redis-cli", ["-u", redis.url, "PUBSUB", "NUMSUB", channel]).catch(() => ({ stdout: "" }))
          )
          subscribers = Number(stdout.trim().split("\n")[1] ?? 0)
        }
        yield* sleep(1500)
        yield* Ref.set(stop, true)
        yield* Fiber.join(load)

        // Every start was answered 202, and every run completes.
        const all = yield* Ref.get(started)
        assert.isAbove(all.length, 40)
        assert.deepStrictEqual([...new Set(all.map((s) => s.status))], [202], "no start failed or hung")
        const ids = [before, during, ...all.map((s) => s.id!)]
        const finished = yield* Effect.forEach(ids, (id) => waitTerminal(api, token, id, 60_000), { concurrency: 16 })
        assert.deepStrictEqual([...new Set(finished.map((r) => r.status))], ["completed"])

        for (const stream of [yield* Fiber.join(streamBefore), yield* Fiber.join(streamDuring)]) {
          assert.strictEqual(stream.status, 200)
          const seqs = stream.events.map((e) => e.id)
          assert.deepStrictEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1), "every event once, in order, no gap")
          assert.strictEqual(stream.events.at(-1)?.data.type, "run_completed")
        }
        assert.strictEqual(subscribers, 1, "the stream's channel is subscribed again")
        const pending = yield* api("GET", "/api/v1/workflow/hitl/pending", undefined, token)
        const requestId = pending.body.items.find((i: { run_id: string }) => i.run_id === paused).request_id as string
        assert.strictEqual((yield* api("POST", `/api/v1/workflow/hitl/${requestId}/respond`, { response: { approved: true } }, token)).status, 200)
        const pausedStream = yield* Fiber.join(streamPaused)
        assert.strictEqual(pausedStream.events.at(-1)?.data.type, "run_completed")

        // Limits hold again: five wrong passwords, then 429 even with the right one.
        for (let i = 0; i < 5; i++) yield* login("wrong-again")
        const throttled = yield* login("redis-admin-password")
        assert.strictEqual(throttled.status, 429, throttled.text)
      }),
    140_000
  )
})
