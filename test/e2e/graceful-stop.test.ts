import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { platformEnv, processPlatform } from "../support/ProcessPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"

const STREAMS = 200
/** Long enough that streams ended at its end, not at once, cannot pass for ended at once on a loaded machine. */
const GRACE_SECONDS = 10
const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/**
 * SIGTERM with 200 open run streams and slow requests in flight: every request that was in
 * flight when the signal came is answered (a model call of 1.5 s each), the streams are ended by
 * the server at once (a client resumes them elsewhere with Last-Event-ID), and the process exits.
 */
layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "120 seconds" })("a graceful stop", (it) => {
  it.scoped(`SIGTERM with ${STREAMS} open streams: no in-flight request is dropped, the streams end at once, the process exits within the grace period`, () =>
    Effect.gen(function*() {
      const model = yield* ScriptedModel
      const { url } = yield* migratedDatabase
      const port = yield* freePort
      const platform = yield* processPlatform({
        ...platformEnv("stop", url, model.baseUrl),
        PORT: String(port),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-stop-")),
        SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS)
      })
      yield* platform.start
      const { api, baseUrl } = platform
      const token = (yield* api("POST", "/api/v1/auth/login", { email: "stop@admin.test", password: "stop-admin-password" })).body.access_token as string
      // Runs that wait on an approval keep their streams open.
      model.setScript(() => ({ text: "ok" }))
      const wf = (yield* api("POST", "/api/v1/workflow/workflows", { name: "Waits" }, token)).body.id as string
      const ask = {
        id: "ask",
        type: "agent",
        name: "ask",
        agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "x" },
        hitl: { type: "approval", prompt: "Go?", assignee: { role: "builder" } }
      }
      yield* api("PATCH", `/api/v1/workflow/workflows/${wf}`, { dag_definition: { nodes: [ask], edges: [] } }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${wf}/publish`, undefined, token)).status, 200)
      const runs = yield* Effect.forEach(
        Array.from({ length: 20 }),
        () => Effect.map(api("POST", `/api/v1/workflow/workflows/${wf}/run`, { input_params: {} }, token), (r) => r.body.id as string),
        { concurrency: 10 }
      )
      const streams = yield* Effect.forEach(Array.from({ length: STREAMS }, (_, i) => runs[i % runs.length]), (runId) =>
        Effect.promise(async () => {
          const response = await fetch(`${baseUrl}/api/v1/workflow/runs/${runId}/stream`, { headers: { authorization: `Bearer ${token}` } })
          const reader = response.body!.getReader()
          const ended = (async () => {
            for (;;) {
              const chunk = await reader.read().catch(() => ({ done: true }))
              if (chunk.done) return Date.now()
            }
          })()
          return { status: response.status, ended }
        }), { concurrency: 50 })
      assert.deepStrictEqual([...new Set(streams.map((s) => s.status))], [200])

      // Slow requests (a model call of 1.5 s each) in flight when the signal comes.
      model.setScript(() => ({ text: "slow answer", delayMs: 1500, chunks: ["slow ", "answer"] }))
      const inFlight = Effect.forEach(
        Array.from({ length: 16 }),
        () =>
          api("POST", "/api/v1/agent/agents/test-execute", { agent_config: { agent_type: "respond", system_prompt_template: "Be slow" }, inputs: {} }, token),
        { concurrency: 16 }
      )
      const sent = yield* Effect.fork(inFlight)
      // All 16 in flight (their model calls streaming) when the signal comes, however slow the machine.
      for (let i = 0; i < 500 && model.streaming() < 16; i++) yield* sleep(10)
      assert.isAtLeast(model.streaming(), 16, "the 16 requests reached the model before the signal")
      const signalled = Date.now()
      platform.signal("SIGTERM")
      const answers = yield* sent.await.pipe(Effect.flatMap((exit) => exit))
      assert.deepStrictEqual(answers.map((a) => a.status), Array.from({ length: 16 }, () => 200), answers.map((a) => a.text.slice(0, 100)).join("\n"))
      const ends = yield* Effect.promise(() => Promise.all(streams.map((s) => s.ended)))
      assert.isBelow(Math.max(...ends) - signalled, (GRACE_SECONDS * 1000) / 2, "the streams end at once, not at the end of the grace period")
      const exitedAt = yield* platform.exited
      assert.isBelow(exitedAt - signalled, GRACE_SECONDS * 1000 + 5_000, "the process exits within the grace period")
    }))
})
