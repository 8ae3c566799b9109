import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import pg from "pg"
import { freePort } from "../../platform/FreePort.js"
import type { HttpResult } from "../support/Http.js"
import { platformEnv, processPlatform, waitTerminal } from "../support/ProcessPlatform.js"
import { parseSse } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

const RUNS = 200
const KILLS = 5

/** A respond step whose prompt names the run (by its tag) and the node: the model knows who calls. */
const step = (id: string) => ({
  id,
  type: "agent",
  name: id,
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: `K|{{workflow_input.tag}}|${id}` }
})

const KINDS = ["chain", "branches", "approval", "parent"] as const
type Kind = typeof KINDS[number]

const dags = (childWorkflow: string): Record<Kind, unknown> => ({
  chain: { nodes: [step("a"), step("b"), step("c")], edges: [{ from: "a", to: "b" }, { from: "b", to: "c" }] },
  branches: {
    nodes: [step("a"), step("b"), step("c"), step("d")],
    edges: [{ from: "a", to: "b" }, { from: "a", to: "c" }, { from: "b", to: "d" }, { from: "c", to: "d" }]
  },
  approval: {
    nodes: [step("a"), { ...step("h"), hitl: { type: "approval", prompt: "Go on?", assignee: { role: "builder" } } }, step("c")],
    edges: [{ from: "a", to: "h" }, { from: "h", to: "c" }]
  },
  parent: {
    nodes: [
      step("a"),
      { id: "p", type: "call_aie", call_aie_config: { workflow_id: childWorkflow, input_params: { tag: "{{workflow_input.tag}}-child" } } },
      step("c")
    ],
    edges: [{ from: "a", to: "p" }, { from: "p", to: "c" }]
  }
})

/** A call that may meet a dead process: undefined instead of a failure. */
const tolerant = (call: Effect.Effect<HttpResult>) => call.pipe(Effect.catchAllCause(() => Effect.succeed(undefined)))

layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "240 seconds" })("crash safety under load", (it) => {
  it.scoped(
    `SIGKILL at random points during ${RUNS} mixed runs (branches, approvals, child runs), ${KILLS} times: every run finishes, no committed node runs again, no event twice`,
    () =>
      Effect.gen(function*() {
        const db = yield* migratedDatabase
        const model = yield* ScriptedModel
        let epoch = 0
        const calls = new Map<string, Array<number>>()
        model.setScript((r) => {
          const [, tag, node] = (r.messages[0]?.content ?? "").split("|")
          const key = `${tag}/${node}`
          calls.set(key, [...(calls.get(key) ?? []), epoch])
          return { text: `${node}@${epoch}`, delayMs: Math.floor(Math.random() * 40) }
        })
        const env: Record<string, string> = {
          ...platformEnv("chaos", db.url, model.baseUrl),
          PORT: String(yield* freePort),
          DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-chaos-"))
        }
        delete env.REDIS_URL
        const server = yield* processPlatform(env)
        const api = server.api
        yield* server.start
        const token = (yield* api("POST", "/api/v1/auth/login", { email: "chaos@admin.test", password: "chaos-admin-password" })).body
          .access_token as string
        const publish = (name: string, dag: unknown) =>
          Effect.gen(function*() {
            const w = yield* api("POST", "/api/v1/workflow/workflows", { name }, token)
            yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: dag }, token)
            const p = yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)
            assert.strictEqual(p.status, 200, p.text)
            return w.body.id as string
          })
        const child = yield* publish("Child", { nodes: [step("x"), step("y")], edges: [{ from: "x", to: "y" }] })
        const workflows = dags(child)
        const ids = {} as Record<Kind, string>
        for (const kind of KINDS) ids[kind] = yield* publish(kind, workflows[kind])

        // Starts, retried with their Idempotency-Key until answered: a start that died with the
        // process either created its run (replayed) or did not (started by the retry).
        const started = new Map<string, string>()
        const start = (n: number) =>
          Effect.gen(function*() {
            const tag = `r${n}`
            const kind = KINDS[n % KINDS.length]
            for (;;) {
              const r = yield* tolerant(api("POST", `/api/v1/workflow/workflows/${ids[kind]}/run`, { input_params: { tag } }, token, {
                headers: { "idempotency-key": tag }
              }))
              if (r?.status === 202) {
                started.set(tag, r.body.id)
                return
              }
              assert.isTrue(r === undefined || r.status === 503 || r.status === 409, `start ${tag}: ${r?.status} ${r?.text}`)
              yield* sleep(100)
            }
          })
        const starting = yield* Effect.forEach(Array.from({ length: RUNS }, (_, n) => n), (n) => sleep(n * 40).pipe(Effect.zipRight(start(n))), {
          concurrency: "unbounded",
          discard: true
        }).pipe(Effect.fork)

        // A person approves whatever waits, again and again.
        const approver = yield* Effect.gen(function*() {
          for (;;) {
            const pending = yield* tolerant(api("GET", "/api/v1/workflow/hitl/pending?page_size=100", undefined, token))
            for (const item of (pending?.body?.items ?? []) as Array<{ request_id: string }>) {
              yield* tolerant(api("POST", `/api/v1/workflow/hitl/${item.request_id}/respond`, { response: { approved: true } }, token))
            }
            yield* sleep(150)
          }
        }).pipe(Effect.forkScoped)

        for (let kill = 0; kill < KILLS; kill++) {
          yield* sleep(800 + Math.floor(Math.random() * 1700))
          yield* server.kill
          epoch += 1
          yield* server.start
        }
        yield* Fiber.join(starting)

        // Every run ends, completed.
        const client = new pg.Client({ connectionString: db.url })
        yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
        const runs = () =>
          Effect.promise(() =>
            client.query<{ id: string; tag: string; parent_run_id: string | null }>(
              "SELECT id, input_params->>'tag' AS tag, parent_run_id FROM runs"
            )
          ).pipe(Effect.map((r) => r.rows))
        const parents = (yield* runs()).filter((r) => r.parent_run_id === null)
        assert.strictEqual(parents.length, RUNS, "one run per start, retries included")
        // A parent creates its child when it reaches its call_aie node: count children once every parent ended.
        for (const run of parents) {
          const done = yield* waitTerminal(api, token, run.id, 60_000)
          assert.strictEqual(done.status, "completed", `${run.tag}: ${JSON.stringify(done)}`)
        }
        const all = yield* runs()
        assert.strictEqual(new Set(all.map((r) => r.tag)).size, all.length)
        assert.strictEqual(all.filter((r) => r.parent_run_id !== null).length, RUNS / KINDS.length, "one child per parent run")
        for (const run of all.filter((r) => r.parent_run_id !== null)) {
          const done = yield* waitTerminal(api, token, run.id, 60_000)
          assert.strictEqual(done.status, "completed", `${run.tag}: ${JSON.stringify(done)}`)
        }
        yield* Fiber.interrupt(approver)

        // No committed node ran again: the output kept is the last call's, and that incarnation called once.
        const steps = (yield* Effect.promise(() =>
          client.query<{ tag: string; node_id: string; output: { text?: string } | null; status: string }>(
            `SELECT r.input_params->>'tag' AS tag, s.node_id, s.output, s.status FROM run_steps s JOIN runs r ON r.id = s.run_id
           WHERE s.node_type = 'agent'`
          )
        )).rows
        assert.isAbove(steps.length, RUNS * 3)
        for (const s of steps) {
          assert.strictEqual(s.status, "completed")
          const committed = Number(s.output?.text?.split("@")[1])
          const made = calls.get(`${s.tag}/${s.node_id}`) ?? []
          assert.strictEqual(Math.max(...made), committed, `${s.tag}/${s.node_id} was called after it committed: ${made.join(",")}`)
          assert.strictEqual(made.filter((e) => e === committed).length, 1, `${s.tag}/${s.node_id}: ${made.join(",")}`)
        }

        // The kills did hit nodes in flight (else this test would prove nothing).
        assert.isAbove([...calls.values()].filter((epochs) => epochs.length > 1).length, 0, "no node was interrupted by a kill")

        // Each stream: increasing ids, no event twice, one end and it is last.
        for (const run of all) {
          const events = parseSse((yield* api("GET", `/api/v1/workflow/runs/${run.id}/stream`, undefined, token)).text)
          const ids = events.map((e) => e.id)
          assert.deepStrictEqual(ids, [...ids].sort((a, b) => a - b), run.tag)
          assert.strictEqual(new Set(ids).size, ids.length, run.tag)
          const keys = events.filter((e) => e.data.type !== "token").map((e) => `${e.data.type}:${e.data.node_id ?? ""}`)
          assert.strictEqual(new Set(keys).size, keys.length, `${run.tag}: ${keys.join(", ")}`)
          assert.strictEqual(keys.filter((k) => k.startsWith("run_")).filter((k) => k.startsWith("run_completed")).length, 1)
          assert.strictEqual(keys.at(-1), "run_completed:", run.tag)
        }
      }),
    230_000
  )
})
