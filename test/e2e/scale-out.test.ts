import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { freePort } from "../../platform/FreePort.js"
import { platformEnv, processPlatform, waitTerminal } from "../support/ProcessPlatform.js"
import { parseSse } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { testDatabase } from "../support/TestDatabase.js"
import { sharedBusEnv } from "../support/TestServices.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

const RUNS = 90

const step = (id: string) => ({
  id,
  type: "agent",
  name: id,
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: `K|{{workflow_input.tag}}|${id}` }
})

layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "240 seconds" })("scale-out", (it) => {
  it.scoped("three runner processes behind one gateway: one is SIGKILLed under load, its shards move, every run finishes on the others", () =>
    Effect.gen(function*() {
      const db = yield* testDatabase
      const model = yield* ScriptedModel
      const calls = new Map<string, number>()
      model.setScript((r) => {
        const prompt = r.messages[0]?.content ?? ""
        if (!prompt.startsWith("K|")) return { text: "tick" }
        const [, tag, node] = prompt.split("|")
        calls.set(`${tag}/${node}`, (calls.get(`${tag}/${node}`) ?? 0) + 1)
        return { text: `${node} done`, delayMs: 150 + Math.floor(Math.random() * 150) }
      })
      const common: Record<string, string> = {
        ...platformEnv("scale", db.url, model.baseUrl),
        ...sharedBusEnv(`bptest:${db.name}:`),
        RUNNER_LEASE_SECONDS: "6"
      }
      const runner = () =>
        Effect.gen(function*() {
          const p = yield* processPlatform({
            ...common,
            ROLE: "runners",
            PORT: String(yield* freePort),
            RUNNER_PORT: String(yield* freePort),
            DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-runner-"))
          })
          yield* p.start
          return p
        })
      const runners = [yield* runner(), yield* runner(), yield* runner()]
      const gateway = yield* processPlatform({ ...common, ROLE: "gateway", PORT: String(yield* freePort), DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-gw-")) })
      yield* gateway.start
      const api = gateway.api
      const client = new pg.Client({ connectionString: db.url })
      yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
      const runnerRows = () =>
        // The cluster's own membership: runners that heartbeat within the lease (SqlRunnerStorage.getRunners).
        Effect.promise(() =>
          client.query<{ address: string }>("SELECT address FROM cluster_runners WHERE last_heartbeat > NOW() - INTERVAL '6 seconds'")
        ).pipe(Effect.map((r) => r.rows))
      for (let i = 0; i < 200 && (yield* runnerRows()).length < 3; i++) yield* sleep(100)
      assert.strictEqual((yield* runnerRows()).length, 3)

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
      const killed = Effect.gen(function*() {
        // Kill under load whatever the machine's speed: once a third of the runs have reached the
        // model, each runner holds some of them mid-call.
        while (new Set([...calls.keys()].map((k) => k.split("/")[0])).size < RUNS / 3) yield* sleep(20)
        yield* runners[1]!.kill
      })
      yield* Effect.all([load, killed], { concurrency: 2, discard: true })

      for (const id of ids) {
        const done = yield* waitTerminal(api, token, id, 120_000)
        assert.strictEqual(done.status, "completed", JSON.stringify(done))
        const events = parseSse((yield* api("GET", `/api/v1/workflow/runs/${id}/stream`, undefined, token)).text)
        const keys = events.filter((e) => e.data.type !== "token").map((e) => `${e.data.type}:${e.data.node_id ?? ""}`)
        assert.strictEqual(new Set(keys).size, keys.length, keys.join(", "))
        assert.strictEqual(keys.at(-1), "run_completed:")
      }
      yield* api("POST", `${schedule}/disable`, undefined, token)
      const ticks = (yield* api("GET", `/api/v1/workflow/workflows/${ticker.body.id}/runs?trigger_type=schedule&limit=100`, undefined, token))
        .body.items as ReadonlyArray<{ id: string; scheduled_fire_time: string }>
      const times = ticks.map((r) => Date.parse(r.scheduled_fire_time)).sort((a, b) => a - b)
      assert.isAtLeast(times.length, 3)
      assert.strictEqual(new Set(times).size, times.length, "no fire time has two runs")
      assert.deepStrictEqual(times.slice(1).map((t, i) => t - times[i]!).filter((gap) => gap !== 1000), [], "one run every second")
      for (const tick of ticks) assert.strictEqual((yield* waitTerminal(api, token, tick.id, 60_000)).status, "completed")
      // The killed runner had runs in flight; their interrupted nodes ran again on the others.
      assert.isAbove([...calls.values()].filter((n) => n > 1).length, 0, "no run was in flight on the killed runner")
      // A dead runner stops heartbeating and leaves the membership once its lease has passed.
      for (let i = 0; i < 300 && (yield* runnerRows()).length > 2; i++) yield* sleep(100)
      assert.strictEqual((yield* runnerRows()).length, 2, "the killed runner is out of the cluster")
    }), 230_000)
})
