import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { platformEnv, processPlatform, waitTerminal } from "../support/ProcessPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"
import { respondNode } from "../support/Workflows.js"

const RUNS = 100
const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/**
 * 100 runs paused on an approval, the platform stopped (SIGTERM) and then SIGKILLed after a
 * restart, started again: every approval resumes its run on the new process, the node before the
 * approval is never executed again, the approved node once per run.
 */
layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "150 seconds" })("paused runs across restarts", (it) => {
  it.scoped(`${RUNS} paused runs resume after a full restart and after a SIGKILL`, () =>
    Effect.gen(function*() {
      const model = yield* ScriptedModel
      const { url } = yield* migratedDatabase
      const port = yield* freePort
      const platform = yield* processPlatform({
        ...platformEnv("resume", url, model.baseUrl),
        PORT: String(port),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-resume-"))
      })
      const calls: Record<string, number> = {}
      model.setScript((r) => {
        const prompt = r.messages[0]?.content ?? ""
        calls[prompt] = (calls[prompt] ?? 0) + 1
        return { text: `${prompt} done` }
      })
      yield* platform.start
      const { api } = platform
      const signIn = Effect.map(
        api("POST", "/api/v1/auth/login", { email: "resume@admin.test", password: "resume-admin-password" }),
        (r) => r.body.access_token as string
      )
      const token = yield* signIn
      const wf = (yield* api("POST", "/api/v1/workflow/workflows", { name: "Answer, then approve" }, token)).body.id as string
      yield* api("PATCH", `/api/v1/workflow/workflows/${wf}`, {
        dag_definition: {
          nodes: [respondNode("a", "A"), { ...respondNode("h", "H"), hitl: { type: "approval", prompt: "Go?", assignee: { role: "builder" } } }],
          edges: [{ from: "a", to: "h" }]
        }
      }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${wf}/publish`, undefined, token)).status, 200)
      const ids = yield* Effect.forEach(Array.from({ length: RUNS }), () =>
        Effect.map(api("POST", `/api/v1/workflow/workflows/${wf}/run`, { input_params: {} }, token), (r) => r.body.id as string), { concurrency: 16 })
      const pendingRequests = Effect.gen(function*() {
        const all: Array<{ run_id: string; request_id: string }> = []
        for (let page = 1; page <= 10; page++) {
          const r = yield* api("GET", `/api/v1/workflow/hitl/pending?page=${page}&page_size=100`, undefined, token)
          all.push(...r.body.items)
          if (r.body.items.length < 100) {
            break
          }
        }
        return all.filter((p) =>
          ids.includes(p.run_id)
        )
      })
      for (let i = 0; i < 100 && (yield* pendingRequests).length < RUNS; i++) yield* sleep(100)
      assert.strictEqual((yield* pendingRequests).length, RUNS, "every run is paused on its approval")
      assert.strictEqual(calls.A, RUNS)
      assert.strictEqual(calls.H, undefined)

      // A full restart: a graceful stop, then a start on the same data.
      platform.signal("SIGTERM")
      yield* platform.exited
      yield* platform.start
      // Half of them answered, then a SIGKILL, then the other half after the next start.
      const requests = yield* pendingRequests
      assert.strictEqual(requests.length, RUNS, "the paused runs are still waiting after the restart")
      const answer = (requestId: string) =>
        Effect.map(api("POST", `/api/v1/workflow/hitl/${requestId}/respond`, { response: { approved: true } }, token), (r) =>
          assert.strictEqual(r.status, 200, r.text))
      const firstHalf = requests.slice(0, RUNS / 2)
      yield* Effect.forEach(firstHalf, (p) =>
        answer(p.request_id), { concurrency: 10 })
      yield* Effect.forEach(firstHalf, (p) =>
        waitTerminal(api, token, p.run_id, 60_000), { concurrency: 10 })
      yield* platform.kill
      yield* platform.start
      yield* Effect.forEach(requests.slice(RUNS / 2), (p) => answer(p.request_id), { concurrency: 10 })

      const finished = yield* Effect.forEach(ids, (id) => waitTerminal(api, token, id, 60_000), { concurrency: 10 })
      assert.deepStrictEqual([...new Set(finished.map((r) => r.status))], ["completed"])
      assert.deepStrictEqual(finished.map((r) => r.output), ids.map(() => ({ text: "H done" })))
      assert.strictEqual(calls.A, RUNS, "no node before the approval ran again")
      assert.strictEqual(calls.H, RUNS, "the approved node ran once per run")
    }), 140_000)
})
