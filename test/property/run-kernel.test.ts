import { assert, layer } from "@effect/vitest"
import { Context, Effect, Exit, FastCheck, Layer, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { RunModule } from "../../runtime/run/RunModule.js"
import { ParkNode } from "../support/ParkNode.js"
import { type Api, apiOf } from "../support/ProcessPlatform.js"
import { parseSse } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { testDatabase } from "../support/TestDatabase.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, servePlatform } from "../support/TestPlatform.js"

/*
 * The run and step state machines, driven through the run module by random sequences of starts,
 * node results (a step succeeds or fails), waits (an external answer, an approval), answers,
 * cancels and crashes (the platform stopped mid-flight and started again on the same database).
 *
 * Invariants, checked on every observation and at the end:
 *  1. A run has exactly one terminal event (run_completed, run_failed or run_cancelled); it is
 *     its last event and agrees with its final status.
 *  2. A terminal status is never left: once a run (or a step) is seen completed, failed,
 *     cancelled or skipped, every later observation sees the same.
 *  3. A run's events are strictly ordered (increasing ids, none twice), and so are each step's:
 *     step_started comes before the step's one ending event.
 *  4. A cancel that was accepted (200) leaves the run cancelled.
 *  5. Every run ends once what it waits for is answered.
 */

const step = (id: string) => ({
  id,
  type: "agent",
  name: id,
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: `P|{{workflow_input.tag}}|${id}` }
})

const KINDS = {
  chain: { nodes: [step("a"), step("b")], edges: [{ from: "a", to: "b" }] },
  park: {
    nodes: [step("a"), { id: "wait", type: "notify_user", notify_user_config: { operation: "send", mode: "park", expires_after_seconds: 600 } }, step("b")],
    edges: [{ from: "a", to: "wait" }, { from: "wait", to: "b" }]
  },
  approval: {
    nodes: [step("a"), { ...step("h"), hitl: { type: "approval", prompt: "Go on?", assignee: { role: "builder" } } }, step("b")],
    edges: [{ from: "a", to: "h" }, { from: "h", to: "b" }]
  }
} as const
type Kind = keyof typeof KINDS

interface Platform {
  readonly api: Api
  readonly token: string
  readonly runs: RunModule["Type"]
}

/** The suite's database, its model and the platform of the moment (a crash replaces it). */
class World extends Context.Tag("KernelPropertyWorld")<World, {
  readonly current: () => Platform
  readonly crash: Effect.Effect<void>
  readonly workflows: Record<Kind, string>
  /** Node results by `tag/node`: false fails the step. */
  readonly results: Map<string, boolean>
}>() {}

const WorldLive = Layer.scoped(
  World,
  Effect.gen(function*() {
    const db = yield* testDatabase
    const model = yield* ScriptedModel
    const results = new Map<string, boolean>()
    model.setScript((r) => {
      const [, tag, node] = (r.messages[0]?.content ?? "").split("|")
      const delayMs = Math.floor(Math.random() * 30)
      return results.get(`${tag}/${node}`) === false ? { status: 400, text: "refused", delayMs } : { text: `${node} ok`, delayMs }
    })
    const env = {
      DATABASE_URL: db.url,
      HOST: "127.0.0.1",
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-prop-")),
      JWT_SECRET: randomBytes(32).toString("hex"),
      CREDENTIALS_KEY: randomBytes(32).toString("base64"),
      BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SHUTDOWN_GRACE_SECONDS: "0",
      LLM_BASE_URL: model.baseUrl,
      LLM_MODELS: "test-model"
    }
    const boot = Effect.gen(function*() {
      const scope = yield* Scope.make()
      const port = yield* freePort
      const context = yield* servePlatform({ ...env, PORT: String(port) }, [ParkNode]).pipe(Scope.extend(scope), Effect.orDie)
      const api = apiOf(`http://127.0.0.1:${port}`)
      const token = (yield* api("POST", "/api/v1/auth/login", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body.access_token as string
      return { scope, platform: { api, token, runs: Context.get(context, RunModule) } }
    })
    let live = yield* boot
    yield* Effect.addFinalizer(() => Scope.close(live.scope, Exit.void))
    const workflows = {} as Record<Kind, string>
    for (const [kind, dag] of Object.entries(KINDS) as Array<[Kind, unknown]>) {
      const { api, token } = live.platform
      const w = yield* api("POST", "/api/v1/workflow/workflows", { name: kind }, token)
      yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: dag }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)
      workflows[kind] = w.body.id
    }
    return {
      current: () => live.platform,
      crash: Effect.gen(function*() {
        yield* Scope.close(live.scope, Exit.void)
        live = yield* boot
      }),
      workflows,
      results
    }
  })
).pipe(Layer.provideMerge(ScriptedModel.layer))

const TERMINAL = ["completed", "failed", "cancelled", "skipped"]

type Action =
  | { readonly type: "answer"; readonly run: number; readonly approve: boolean }
  | { readonly type: "cancel"; readonly run: number }
  | { readonly type: "crash" }
  | { readonly type: "wait"; readonly ms: number }

/** A step succeeds four times in five. */
const mostly = FastCheck.constantFrom(true, true, true, true, false)

const runPlan = FastCheck.record({
  kind: FastCheck.constantFrom<Kind>("chain", "park", "approval"),
  /** Whether each agent step (a, h, b) succeeds. */
  ok: FastCheck.record({ a: mostly, h: mostly, b: mostly })
})

const action = (runs: number): FastCheck.Arbitrary<Action> =>
  FastCheck.oneof(
    { weight: 3, arbitrary: FastCheck.record({ type: FastCheck.constant("answer" as const), run: FastCheck.nat(runs - 1), approve: FastCheck.boolean() }) },
    { weight: 2, arbitrary: FastCheck.record({ type: FastCheck.constant("cancel" as const), run: FastCheck.nat(runs - 1) }) },
    { weight: 2, arbitrary: FastCheck.record({ type: FastCheck.constant("crash" as const) }) },
    { weight: 3, arbitrary: FastCheck.record({ type: FastCheck.constant("wait" as const), ms: FastCheck.integer({ min: 0, max: 120 }) }) }
  )

const scenario = FastCheck.integer({ min: 1, max: 4 }).chain((n) =>
  FastCheck.record({
    runs: FastCheck.array(runPlan, { minLength: n, maxLength: n }),
    actions: FastCheck.array(action(n), { maxLength: 8 }).filter((a) => a.filter((x) => x.type === "crash").length <= 1)
  })
)

let scenarioCount = 0

layer(WorldLive, { excludeTestServices: true, timeout: "300 seconds" })("run kernel state machines", (it) => {
  it.effect.prop(
    "random starts, results, waits, answers, cancels and crashes keep the run and step invariants",
    { scenario },
    ({ scenario: s }) =>
      Effect.gen(function*() {
        const world = yield* World
        const prefix = `s${scenarioCount++}`
        const tags = s.runs.map((_, i) => `${prefix}r${i}`)
        s.runs.forEach((plan, i) => {
          for (const [node, ok] of Object.entries(plan.ok)) world.results.set(`${tags[i]}/${node}`, ok)
        })
        const ids: Array<string> = []
        for (const [i, plan] of s.runs.entries()) {
          const { api, token } = world.current()
          const r = yield* api("POST", `/api/v1/workflow/workflows/${world.workflows[plan.kind]}/run`, { input_params: { tag: tags[i] } }, token)
          assert.strictEqual(r.status, 202, r.text)
          ids.push(r.body.id)
        }
        const seenRun = new Map<string, string>()
        const seenStep = new Map<string, string>()
        const cancelled = new Set<string>()
        const observe = Effect.gen(function*() {
          const { api, token } = world.current()
          for (const id of ids) {
            const run = (yield* api("GET", `/api/v1/workflow/runs/${id}`, undefined, token)).body
            const before = seenRun.get(id)
            if (before !== undefined && TERMINAL.includes(before)) assert.strictEqual(run.status, before, `run ${id} left ${before}`)
            seenRun.set(id, run.status)
            const steps = (yield* api("GET", `/api/v1/workflow/runs/${id}/steps`, undefined, token)).body
            for (const st of (steps.items ?? steps) as Array<{ node_id: string; status: string }>) {
              const key = `${id}/${st.node_id}`
              const was = seenStep.get(key)
              if (was !== undefined && TERMINAL.includes(was)) assert.strictEqual(st.status, was, `step ${key} left ${was}`)
              seenStep.set(key, st.status)
            }
          }
        })
        const answer = (index: number, approve: boolean) =>
          Effect.gen(function*() {
            const { api, runs, token } = world.current()
            const id = ids[index]
            if (s.runs[index].kind === "park") {
              if (yield* runs.resolveWait(id, "wait", approve ? "yes" : "no")) yield* runs.wake(id)
              return
            }
            const pending = (yield* api("GET", "/api/v1/workflow/hitl/pending?page_size=100", undefined, token)).body.items as Array<
              { run_id: string; request_id: string }
            >
            const request = pending.find((p) => p.run_id === id)
            if (request !== undefined) {
              yield* api("POST", `/api/v1/workflow/hitl/${request.request_id}/respond`, { response: { approved: approve } }, token)
            }
          })

        for (const a of s.actions) {
          switch (a.type) {
            case "answer":
              yield* answer(a.run, a.approve)
              break
            case "cancel": {
              const { api, token } = world.current()
              const r = yield* api("POST", `/api/v1/workflow/runs/${ids[a.run]}/cancel`, undefined, token)
              assert.include([200, 409], r.status, r.text)
              if (r.status === 200) cancelled.add(ids[a.run])
              break
            }
            case "crash":
              yield* world.crash
              break
            case "wait":
              yield* Effect.sleep(`${a.ms} millis`)
          }
          yield* observe
        }

        // Whatever still waits is answered until every run has ended.
        for (let round = 0;; round++) {
          yield* observe
          const open = ids.filter((id) => !TERMINAL.includes(seenRun.get(id) ?? ""))
          if (open.length === 0) break
          assert.isBelow(round, 200, `runs never ended: ${open.join(", ")}`)
          for (const id of open) yield* answer(ids.indexOf(id), true)
          yield* Effect.sleep("50 millis")
        }

        const { api, token } = world.current()
        for (const id of ids) {
          const final = seenRun.get(id)!
          if (cancelled.has(id)) assert.strictEqual(final, "cancelled", `${id} was cancelled`)
          const events = parseSse((yield* api("GET", `/api/v1/workflow/runs/${id}/stream`, undefined, token)).text)
          const seq = events.map((e) => e.id)
          assert.deepStrictEqual(seq, [...seq].sort((x, y) => x - y), id)
          assert.strictEqual(new Set(seq).size, seq.length, id)
          const types = events.map((e) => e.data.type)
          const terminal = types.filter((t) => t === "run_completed" || t === "run_failed" || t === "run_cancelled")
          assert.deepStrictEqual(terminal, [`run_${final}`], `${id}: ${types.join(", ")}`)
          assert.strictEqual(types.at(-1), `run_${final}`)
          const byNode = new Map<string, Array<string>>()
          for (const e of events) {
            if (typeof e.data.node_id !== "string" || !e.data.type.startsWith("step_")) continue
            byNode.set(e.data.node_id, [...(byNode.get(e.data.node_id) ?? []), e.data.type])
          }
          for (const [node, stepTypes] of byNode) {
            const endings = stepTypes.filter((t) => t !== "step_started")
            assert.isAtMost(endings.length, 1, `${id}/${node}: ${stepTypes.join(", ")}`)
            assert.isAtMost(stepTypes.filter((t) => t === "step_started").length, 1, `${id}/${node}: ${stepTypes.join(", ")}`)
            if (stepTypes.includes("step_started") && endings.length === 1) assert.strictEqual(stepTypes[0], "step_started")
          }
        }
      }),
    // 32 s alone on two cores; 61 s with three suites beside it: the 60 s default is too close.
    { timeout: 180_000, fastCheck: { numRuns: 20 } }
  )
})
