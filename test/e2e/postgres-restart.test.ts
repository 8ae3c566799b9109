import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Ref } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import type { HttpResult } from "../support/Http.js"
import { ownPostgres } from "../support/OwnPostgres.js"
import { platformEnv, processPlatform, waitTerminal } from "../support/ProcessPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { respondNode } from "../support/Workflows.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

interface Seen {
  readonly status: number | undefined
  readonly ms: number
  readonly id?: string
}

/**
 * PostgreSQL itself restarted under load, as `pg_ctl restart -m immediate` does (every backend
 * killed, crash recovery), then down for 10 s: the platform stays up (`/health` 200 throughout),
 * `/ready` turns 503 and back to 200, every request is answered (202, or 503 while the database is away; never a 500 or a
 * hang), and every run that was accepted finishes.
 */
layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "150 seconds" })("PostgreSQL restarts", (it) => {
  it.scoped(
    "pg_ctl restart -m immediate under load, then a 10 s outage: 503s, never 500s or hangs; every accepted run completes",
    () =>
      Effect.gen(function*() {
        const model = yield* ScriptedModel
        const postgres = yield* ownPostgres
        const platform = yield* processPlatform({
          ...platformEnv("pgrestart", postgres.url, model.baseUrl),
          PORT: String(yield* freePort),
          DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-pgrestart-")),
          DATABASE_QUERY_TIMEOUT_SECONDS: "5"
        })
        yield* platform.start
        const { api } = platform
        const token = (yield* api("POST", "/api/v1/auth/login", { email: "pgrestart@admin.test", password: "pgrestart-admin-password" })).body
          .access_token as string
        model.setScript(() => ({ text: "done", chunks: ["do", "ne"], delayMs: 50 }))
        const wf = (yield* api("POST", "/api/v1/workflow/workflows", { name: "Through restarts" }, token)).body.id as string
        yield* api("PATCH", `/api/v1/workflow/workflows/${wf}`, {
          dag_definition: { nodes: [respondNode("a", "A"), respondNode("b", "B")], edges: [{ from: "a", to: "b" }] }
        }, token)
        assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${wf}/publish`, undefined, token)).status, 200)

        const timed = (call: Effect.Effect<HttpResult>) =>
          Effect.gen(function*() {
            const started = Date.now()
            const r = yield* call.pipe(Effect.catchAllCause(() => Effect.succeed(undefined)))
            return { status: r?.status, ms: Date.now() - started, ...(r?.status === 202 ? { id: r.body.id as string } : {}) } satisfies Seen
          })
        const starts = yield* Ref.make<Array<Seen>>([])
        const health = yield* Ref.make<Array<Seen>>([])
        const live = yield* Ref.make<Array<Seen>>([])
        const stop = yield* Ref.make(false)
        const loop = (ref: Ref.Ref<Array<Seen>>, call: Effect.Effect<HttpResult>, every: number) =>
          Effect.fork(Effect.gen(function*() {
            while (!(yield* Ref.get(stop))) {
              const seen = yield* timed(call)
              yield* Ref.update(ref, (all) => [...all, seen])
              yield* sleep(every)
            }
          }))
        const starting = yield* loop(starts, api("POST", `/api/v1/workflow/workflows/${wf}/run`, { input_params: {} }, token), 40)
        const probing = yield* loop(health, api("GET", "/ready"), 100)
        const living = yield* loop(live, api("GET", "/health"), 100)

        yield* sleep(1500)
        yield* postgres.restartImmediate
        yield* sleep(3000)
        yield* postgres.stopImmediate
        yield* sleep(10_000)
        yield* postgres.start
        // Until /ready is 200 again, and a little longer.
        for (let i = 0; i < 100 && (yield* Ref.get(health)).at(-1)?.status !== 200; i++) yield* sleep(100)
        yield* sleep(2000)
        yield* Ref.set(stop, true)
        yield* Fiber.join(starting)
        yield* Fiber.join(probing)
        yield* Fiber.join(living)

        const all = yield* Ref.get(starts)
        const statuses = [...new Set(all.map((s) => s.status))].sort()
        assert.includeMembers([202, 503], statuses, `only 202 or 503: ${statuses.join(", ")}`)
        assert.isBelow(Math.max(...all.map((s) => s.ms)), 12_000, "no start waited past the database's time limits")
        assert.isAbove(all.filter((s) => s.status === 503).length, 0, "starts during the outage were refused")
        const probes = (yield* Ref.get(health)).map((h) => h.status)
        assert.include(probes, 503, "/ready turned 503")
        assert.strictEqual(probes.at(-1), 200, "/ready is 200 again")
        assert.isTrue(probes.every((s) => s === 200 || s === 503), `ready: ${[...new Set(probes)].join(", ")}`)
        assert.deepStrictEqual([...new Set((yield* Ref.get(live)).map((h) => h.status))], [200], "the process stayed live")

        const accepted = all.flatMap((s) => (s.id !== undefined ? [s.id] : []))
        assert.isAbove(accepted.length, 50)
        const finished = yield* Effect.forEach(accepted, (id) =>
          waitTerminal(api, token, id, 60_000).pipe(
            Effect.catchAllDefect((defect) =>
              Effect.dieMessage(
                `${String(defect)}; the platform's log of it:\n${
                  platform.output().split("\n").filter((l) => l.includes(id)).slice(-30).join("\n")
                }\n(last lines)\n${platform.output().slice(-4000)}`
              )
            )
          ), { concurrency: 8 })
        assert.deepStrictEqual([...new Set(finished.map((r) => r.status))], ["completed"], "every accepted run completes")
      }),
    140_000
  )
})
