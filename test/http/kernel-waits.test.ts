import { assert, layer } from "@effect/vitest"
import { Context, Effect, Exit, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { RunModule } from "../../runtime/run/RunModule.js"
import { request } from "../support/Http.js"
import { ParkNode } from "../support/ParkNode.js"
import { parseSse } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, servePlatform } from "../support/TestPlatform.js"
import { respondNode } from "../support/Workflows.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/** A platform on `databaseUrl` with the test's park node type, living as long as `scope`. */
const platformIn = (scope: Scope.Scope, databaseUrl: string, modelUrl: string) =>
  Effect.gen(function*() {
    const port = yield* freePort
    const context = yield* servePlatform({
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-waits-")),
      JWT_SECRET: "kernel-waits-jwt-secret-kernel-waits-jwt-secret",
      CREDENTIALS_KEY: randomBytes(32).toString("base64"),
      BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SHUTDOWN_GRACE_SECONDS: "1",
      LLM_BASE_URL: modelUrl,
      LLM_MODELS: "test-model"
    }, [ParkNode]).pipe(Scope.extend(scope))
    const baseUrl = `http://127.0.0.1:${port}`
    const api = (method: string, p: string, body?: unknown, token?: string) =>
      request(baseUrl, method, p, { ...(body !== undefined ? { body } : {}), ...(token !== undefined ? { token } : {}) })
    const token = (yield* api("POST", "/api/v1/auth/login", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body.access_token as string
    return { api, token, runs: Context.get(context, RunModule) }
  })

type Platform = Effect.Effect.Success<ReturnType<typeof platformIn>>

/** A platform on a fresh database whose model answers "ok", noting each call's system prompt. */
const answeringOk = Effect.gen(function*() {
  const db = yield* migratedDatabase
  const model = yield* ScriptedModel
  const calls: Array<string> = []
  model.setScript((r) => {
    calls.push(r.messages[0]?.content ?? "")
    return { text: "ok" }
  })
  return { p: yield* platformIn(yield* Effect.scope, db.url, model.baseUrl), calls }
})

const park = (id: string, config: Record<string, unknown> = {}) => ({
  id,
  type: "notify_user",
  notify_user_config: { operation: "send", mode: "park", title: "Go on?", ...config }
})

const publishDag = (p: Platform, dag: unknown) =>
  Effect.gen(function*() {
    const w = yield* p.api("POST", "/api/v1/workflow/workflows", { name: "Waits" }, p.token)
    yield* p.api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: dag }, p.token)
    const published = yield* p.api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, p.token)
    assert.strictEqual(published.status, 200, published.text)
    return w.body.id as string
  })

const waitFor = (p: Platform, runId: string, status: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 300; i++) {
      const run = (yield* p.api("GET", `/api/v1/workflow/runs/${runId}`, undefined, p.token)).body
      if (run.status === status) return run
      yield* sleep(50)
    }
    return yield* Effect.dieMessage(`run ${runId} never became ${status}`)
  })

const eventsOf = (p: Platform, runId: string) =>
  p.api("GET", `/api/v1/workflow/runs/${runId}/stream`, undefined, p.token).pipe(Effect.map((r) => parseSse(r.text)))

const stepOutput = (p: Platform, runId: string, nodeId: string) =>
  p.api("GET", `/api/v1/workflow/runs/${runId}/steps`, undefined, p.token).pipe(
    Effect.map((r) => (r.body.items ?? r.body).find((s: { node_id: string }) => s.node_id === nodeId))
  )

const chain = (parkConfig: Record<string, unknown> = {}) => ({
  nodes: [respondNode("a", "A"), park("wait", parkConfig), respondNode("b", "B")],
  edges: [{ from: "a", to: "wait" }, { from: "wait", to: "b" }]
})

layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "120 seconds" })("the kernel's wait seam", (it) => {
  it.scoped("a node that waits for an external answer pauses the run; the answer resumes it where it waited", () =>
    Effect.gen(function*() {
      const { p, calls } = yield* answeringOk
      const workflow = yield* publishDag(p, chain({ expires_after_seconds: 600 }))
      const run = (yield* p.api("POST", `/api/v1/workflow/workflows/${workflow}/run`, { input_params: {} }, p.token)).body.id as string
      yield* waitFor(p, run, "paused")
      assert.strictEqual((yield* stepOutput(p, run, "wait")).status, "running")
      assert.deepStrictEqual(calls, ["A"])

      assert.isTrue(yield* p.runs.resolveWait(run, "wait", "yes"))
      assert.isFalse(yield* p.runs.resolveWait(run, "wait", "again"), "a wait resolves once")
      yield* p.runs.wake(run)
      const done = yield* waitFor(p, run, "completed")
      assert.deepStrictEqual(done.output, { text: "ok" })
      assert.deepStrictEqual((yield* stepOutput(p, run, "wait")).output, { answer: "yes" })
      assert.deepStrictEqual(calls, ["A", "B"], "the node before the wait is not run again")

      const events = yield* eventsOf(p, run)
      const ids = events.map((e) => e.id)
      assert.deepStrictEqual(ids, [...ids].sort((a, b) => a - b))
      assert.deepStrictEqual(events.filter((e) => e.data.type !== "token").map((e) => `${e.data.type}:${e.data.node_id ?? ""}`), [
        "step_started:a",
        "agent_completed:a",
        "step_completed:a",
        "step_started:wait",
        "run_paused:wait",
        "run_resumed:wait",
        "step_completed:wait",
        "step_started:b",
        "agent_completed:b",
        "step_completed:b",
        "run_completed:"
      ])
    }))

  it.scoped("a run cancelled before its start reaches its entity never runs, though the start carries the fresh record", () =>
    Effect.gen(function*() {
      const { p, calls } = yield* answeringOk
      const workflow = yield* publishDag(p, { nodes: [respondNode("a", "A")], edges: [] })
      const tenantId = (yield* p.api("GET", `/api/v1/workflow/workflows/${workflow}`, undefined, p.token)).body.tenant_id as string
      const created = yield* p.runs.create({ tenantId, workflowId: workflow, triggerType: "api", isDryRun: false, input: {} })
      assert.isDefined(created.fresh, "a run inserted with a new id carries its record")
      assert.strictEqual((yield* p.runs.cancel(created.id)).outcome, "cancelled")
      yield* p.runs.launchCreated(created)
      yield* sleep(800)
      const run = (yield* p.api("GET", `/api/v1/workflow/runs/${created.id}`, undefined, p.token)).body
      assert.strictEqual(run.status, "cancelled")
      assert.deepStrictEqual(calls, [])
      assert.deepStrictEqual((yield* p.api("GET", `/api/v1/workflow/runs/${created.id}/steps`, undefined, p.token)).body.items, [])
      assert.deepStrictEqual((yield* eventsOf(p, created.id)).map((e) => e.data.type), ["run_cancelled"])

      // The same start for a run still pending runs it, with no read before its first commit.
      const next = yield* p.runs.create({ tenantId, workflowId: workflow, triggerType: "api", isDryRun: false, input: { zeta: 1, a: 2 } })
      // The record carries the input as stored (jsonb's key order), as a later activation would read it.
      assert.deepStrictEqual(Object.keys(next.fresh?.input_params ?? {}), ["a", "zeta"])
      yield* p.runs.launchCreated(next)
      assert.deepStrictEqual((yield* waitFor(p, next.id, "completed")).output, { text: "ok" })
      assert.deepStrictEqual((yield* eventsOf(p, next.id)).filter((e) => e.data.type !== "token").map((e) => e.data.type), [
        "step_started",
        "agent_completed",
        "step_completed",
        "run_completed"
      ])
    }))

  it.scoped("a timer set before a restart fires after it, with no process running when it was due", () =>
    Effect.gen(function*() {
      const db = yield* migratedDatabase
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const first = yield* Scope.make()
      const p1 = yield* platformIn(first, db.url, model.baseUrl)
      const workflow = yield* publishDag(p1, chain({ expires_after_seconds: 2 }))
      const run = (yield* p1.api("POST", `/api/v1/workflow/workflows/${workflow}/run`, { input_params: {} }, p1.token)).body.id as string
      yield* waitFor(p1, run, "paused")
      yield* Scope.close(first, Exit.void)
      yield* sleep(2500)

      const p2 = yield* platformIn(yield* Effect.scope, db.url, model.baseUrl)
      yield* waitFor(p2, run, "completed")
      assert.deepStrictEqual((yield* stepOutput(p2, run, "wait")).output, { answer: { timeout: true } })
      const types = (yield* eventsOf(p2, run)).map((e) => e.data.type)
      assert.strictEqual(types.filter((t) => t === "run_completed").length, 1)
      assert.strictEqual(types.at(-1), "run_completed")
    }))
})
