import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import pg from "pg"
import { freePort } from "../../platform/FreePort.js"
import { platformEnv, processPlatform, waitTerminal } from "../support/ProcessPlatform.js"
import { parseSse } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { testDatabase } from "../support/TestDatabase.js"
import { sharedBusEnv } from "../support/TestServices.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

const RUNS = 90
/** The runners' lease: shards, and the row locks of a transaction a frozen runner left open, are taken over after it. */
const LEASE_SECONDS = 6

const step = (id: string) => ({
  id,
  type: "agent",
  name: id,
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: `K|{{workflow_input.tag}}|${id}` }
})

layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "240 seconds" })("scale-out", (it) => {
  it.scoped(
    "a gateway and three runners started at once on an empty database; one is frozen (SIGSTOP) under load: its shards move within the lease, every run finishes while it is frozen, and woken it writes nothing",
    () =>
      Effect.gen(function*() {
        const db = yield* testDatabase
        const model = yield* ScriptedModel
        const calls = new Map<string, number>()
        // When each process (by its LLM_API_KEY) last started a model call.
        const lastCall = new Map<string, number>()
        model.setScript((r, _n, authorization) => {
          const prompt = r.messages[0]?.content ?? ""
          if (!prompt.startsWith("K|")) return { text: "tick" }
          const [, tag, node] = prompt.split("|")
          calls.set(`${tag}/${node}`, (calls.get(`${tag}/${node}`) ?? 0) + 1)
          lastCall.set(authorization ?? "", Date.now())
          return { text: `${node} done`, delayMs: 150 + Math.floor(Math.random() * 150) }
        })
        const common: Record<string, string> = {
          ...platformEnv("scale", db.url, model.baseUrl),
          ...sharedBusEnv(`bptest:${db.name}:`),
          RUNNER_LEASE_SECONDS: String(LEASE_SECONDS),
          // Four processes on the suite's PostgreSQL (max_connections 100 here) beside the other
          // worker's tests: at the default pool of 20 they could take all of it (README, DATABASE_POOL_SIZE).
          DATABASE_POOL_SIZE: "8"
        }
        const runnerProcess = (n: number) =>
          Effect.gen(function*() {
            return yield* processPlatform({
              ...common,
              LLM_API_KEY: `runner-${n}`,
              ROLE: "runners",
              PORT: String(yield* freePort),
              RUNNER_PORT: String(yield* freePort),
              DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-runner-"))
            })
          })
        const runners = [yield* runnerProcess(0), yield* runnerProcess(1), yield* runnerProcess(2)]
        const gateway = yield* processPlatform({
          ...common,
          ROLE: "gateway",
          PORT: String(yield* freePort),
          DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-gw-"))
        })
        // All four at the same moment on an empty database: they migrate one after the other under
        // the migration lock, and all come up.
        yield* Effect.all([gateway, ...runners].map((p) => p.start), { concurrency: "unbounded", discard: true })
        const api = gateway.api
        const client = new pg.Client({ connectionString: db.url })
        yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
        const runnerRows = () =>
          // The cluster's own membership: runners that heartbeat within the lease (SqlRunnerStorage.getRunners).
          Effect.promise(() => client.query<{ address: string }>("SELECT address FROM cluster_runners WHERE last_heartbeat > NOW() - INTERVAL '6 seconds'"))
            .pipe(Effect.map((r) => r.rows))
        for (let i = 0; i < 200 && (yield* runnerRows()).length < 3; i++) yield* sleep(100)
        assert.strictEqual((yield* runnerRows()).length, 3)
        for (let i = 0; i < 100 && (yield* api("GET", "/ready")).status !== 200; i++) yield* sleep(100)
        // Shards spread over the three (the first runner up takes them all, then hands them over).
        const spread = Effect.promise(() => client.query<{ n: number }>("SELECT count(*)::int AS n FROM cluster_locks GROUP BY address")).pipe(
          Effect.map((r) => r.rows.length === 3 && r.rows.every((row) => row.n >= 60))
        )
        for (let i = 0; i < 300 && !(yield* spread); i++) yield* sleep(100)
        assert.isTrue(yield* spread, "the shards are spread over the three runners")
        const ready = yield* api("GET", "/ready")
        assert.strictEqual(ready.status, 200, ready.text)
        assert.isAbove(ready.body.checks.runners, 0)

        const token = (yield* api("POST", "/api/v1/auth/login", { email: "scale@admin.test", password: "scale-admin-password" })).body
          .access_token as string
        const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Spread" }, token)
        yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, {
          dag_definition: { nodes: [step("a"), step("b"), step("c")], edges: [{ from: "a", to: "b" }, { from: "b", to: "c" }] }
        }, token)
        assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)

        // One schedule, four processes firing: one run per fire time, the SIGKILL included.
        const ticker = yield* api("POST", "/api/v1/workflow/workflows", { name: "Ticker" }, token)
        yield* api("PATCH", `/api/v1/workflow/workflows/${ticker.body.id}`, {
          dag_definition: { nodes: [{ ...step("tick"), agent_config: { ...step("tick").agent_config, system_prompt_template: "tick" } }], edges: [] }
        }, token)
        assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${ticker.body.id}/publish`, undefined, token)).status, 200)
        const schedule = `/api/v1/workflow/workflows/${ticker.body.id}/schedule`
        yield* api("PUT", schedule, { cron: "* * * * * *", overlap_policy: "allow" }, token)
        assert.strictEqual((yield* api("POST", `${schedule}/enable`, undefined, token)).status, 200)

        const ids: Array<string> = []
        const load = Effect.forEach(Array.from({ length: RUNS }, (_, n) => n), (n) =>
          Effect.gen(function*() {
            yield* sleep(n * 30)
            const r = yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/run`, { input_params: { tag: `r${n}` } }, token)
            assert.strictEqual(r.status, 202, r.text)
            ids.push(r.body.id)
          }), { concurrency: "unbounded", discard: true })
        const frozen = runners[1]
        const freeze = Effect.gen(function*() {
          // Freeze under load whatever the machine's speed: once a third of the runs have reached the
          // model, and within 100 ms of the frozen runner starting a model call (which lasts 300 ms
          // or more), so that it holds a run mid-call. SIGSTOP is `docker compose pause`, a VM
          // freeze or a long GC pause: its connections stay open, it just stops answering.
          const midCall = () => Date.now() - (lastCall.get("Bearer runner-1") ?? 0) < 100
          while (new Set([...calls.keys()].map((k) => k.split("/")[0])).size < RUNS / 3 || !midCall()) yield* sleep(5)
          frozen.signal("SIGSTOP")
        })
        yield* Effect.all([load, freeze], { concurrency: 2, discard: true })

        for (const id of ids) {
          const done = yield* waitTerminal(api, token, id, 120_000)
          assert.strictEqual(done.status, "completed", JSON.stringify(done))
          const events = parseSse((yield* api("GET", `/api/v1/workflow/runs/${id}/stream`, undefined, token)).text)
          const keys = events.filter((e) => e.data.type !== "token").map((e) => `${e.data.type}:${e.data.node_id ?? ""}`)
          assert.strictEqual(new Set(keys).size, keys.length, keys.join(", "))
          assert.strictEqual(keys.at(-1), "run_completed:")
        }
        yield* api("POST", `${schedule}/disable`, undefined, token)
        const ticks = (yield* api("GET", `/api/v1/workflow/workflows/${ticker.body.id}/runs?trigger_type=schedule&page_size=100`, undefined, token))
          .body.items as ReadonlyArray<{ id: string; scheduled_fire_time: string }>
        const times = ticks.map((r) => Date.parse(r.scheduled_fire_time)).sort((a, b) => a - b)
        assert.isAtLeast(times.length, 3)
        assert.strictEqual(new Set(times).size, times.length, "no fire time has two runs")
        // One run every second. A runner frozen while it was firing the schedule holds its row until
        // PostgreSQL ends its transaction (after the lease); fires older than CATCH_UP_MS by then are
        // dropped as missed: one gap at most, no longer than the lease and a claim round.
        const gaps = times.slice(1).map((t, i) => t - times[i]).filter((gap) => gap !== 1000)
        assert.isAtMost(gaps.length, 1, `one run every second: ${gaps.join(", ")}`)
        for (const gap of gaps) assert.isAtMost(gap, (LEASE_SECONDS + 2) * 1000, "a gap no longer than the lease")
        for (const tick of ticks) assert.strictEqual((yield* waitTerminal(api, token, tick.id, 60_000)).status, "completed")
        // Every run above completed while the runner was still frozen: its shards went to the others.
        // It had runs in flight; their interrupted nodes ran again there.
        assert.isAbove([...calls.values()].filter((n) => n > 1).length, 0, "no run was in flight on the frozen runner")
        assert.strictEqual((yield* runnerRows()).length, 2, "the frozen runner is out of the cluster")
        assert.match(gateway.output(), /Runner 127\.0\.0\.1:\d+ stopped answering: no heartbeat for \d+ s/)
        assert.match(runners[0].output() + runners[2].output(), /Took over \d+ shard\(s\) of runner 127\.0\.0\.1:\d+, whose lease ran out/)

        // Woken, it notices before it writes: its commits are refused (fenced), it says so once, and
        // no node of any run was committed twice (no event above repeats).
        const before = yield* Effect.promise(() => client.query<{ n: number }>("SELECT count(*)::int AS n FROM run_events"))
        frozen.signal("SIGCONT")
        for (let i = 0; i < 150 && !/lost shard/.test(frozen.output()); i++) yield* sleep(100)
        assert.match(frozen.output(), /Runner 127\.0\.0\.1:\d+ lost shard default:\d+ while it was not answering/)
        assert.notMatch(frozen.output(), /lost shard[^\n]*\n\s+at /, "logged without a stack trace")
        yield* sleep(2000)
        const after = yield* Effect.promise(() => client.query<{ n: number }>("SELECT count(*)::int AS n FROM run_events"))
        assert.strictEqual(after.rows[0].n, before.rows[0].n, "the woken runner wrote nothing")

        // With no runner left, the gateway is not ready and refuses run starts it cannot place.
        yield* Effect.all(runners.map((r) => r.kill), { discard: true })
        for (let i = 0; i < 200 && (yield* api("GET", "/ready")).status === 200; i++) yield* sleep(100)
        const notReady = yield* api("GET", "/ready")
        assert.strictEqual(notReady.status, 503, notReady.text)
        assert.strictEqual(notReady.body.code, "NO_RUNNERS")
        assert.strictEqual((yield* api("GET", "/health")).status, 200, "still live")
        const refused = yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/run`, { input_params: { tag: "late" } }, token)
        assert.strictEqual(refused.status, 503, refused.text)
        assert.strictEqual(refused.body.code, "NO_RUNNERS")
        assert.isNotNull(refused.headers.get("retry-after"))
      }),
    230_000
  )
})
