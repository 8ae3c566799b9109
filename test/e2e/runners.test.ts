import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { platformEnv, splitPlatform } from "../support/ProcessPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"
import { sharedBusEnv } from "../support/TestServices.js"
import { respondNode } from "../support/Workflows.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "120 seconds" })("separate runner processes", (it) => {
  it.scoped("ROLE=gateway sends runs to a ROLE=runners process; cancel reaches the run on its runner", () =>
    Effect.gen(function*() {
      const db = yield* migratedDatabase
      const model = yield* ScriptedModel
      const common: Record<string, string> = {
        ...platformEnv("split", db.url, model.baseUrl),
        ...sharedBusEnv(`bptest:${db.name}:`)
      }
      const { gateway } = yield* splitPlatform(common)
      const api = gateway.api
      const token = (yield* api("POST", "/api/v1/auth/login", { email: "split@admin.test", password: "split-admin-password" })).body
        .access_token as string
      const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Split" }, token)
      yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: { nodes: [respondNode("a", "A")] } }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)

      model.setScript(() => ({ text: "from the runner" }))
      const run = yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/run`, { input_params: {} }, token)
      assert.strictEqual(run.status, 202)
      let status = ""
      for (let i = 0; i < 200 && status !== "completed"; i++) {
        status = (yield* api("GET", `/api/v1/workflow/runs/${run.body.id}`, undefined, token)).body.status
        yield* sleep(100)
      }
      assert.strictEqual(status, "completed")

      // A chat turn: accepted by the gateway, run and answered (hook, title) on the runner.
      const chat = yield* api("POST", "/api/v1/workflow/workflows", { name: "Split chat", interaction_type: "chat" }, token)
      yield* api("PATCH", `/api/v1/workflow/workflows/${chat.body.id}`, { dag_definition: { nodes: [respondNode("a", "A")] } }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${chat.body.id}/publish`, undefined, token)).status, 200)
      const session = (yield* api("POST", "/api/v1/chat/sessions", { workflow_id: chat.body.id }, token)).body.id as string
      const sent = yield* api("POST", `/api/v1/chat/sessions/${session}/messages`, { content: "hello runner" }, token)
      assert.strictEqual(sent.status, 202)
      let items: Array<{ role: string; content: string }> = []
      for (let i = 0; i < 200 && items.length < 2; i++) {
        items = (yield* api("GET", `/api/v1/chat/sessions/${session}/messages`, undefined, token)).body.items
        if (items.length < 2) yield* sleep(100)
      }
      assert.deepStrictEqual(items.map((m) => `${m.role}:${m.content}`), ["user:hello runner", "assistant:from the runner"])
      // The session's title is asked of the model after the answer: let that call end before the
      // model starts holding calls, or it would be taken for the held run's call below.
      let title = ""
      for (let i = 0; i < 200 && title === ""; i++) {
        title = (yield* api("GET", `/api/v1/chat/sessions/${session}`, undefined, token)).body.title ?? ""
        if (title === "") yield* sleep(100)
      }
      assert.notStrictEqual(title, "")

      model.setScript(() => ({ text: "never", hold: new Promise<void>(() => undefined) }))
      const held = yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/run`, { input_params: {} }, token)
      for (let i = 0; i < 200 && model.inFlight() === 0; i++) yield* sleep(50)
      const abortedBefore = model.aborted()
      const cancel = yield* api("POST", `/api/v1/workflow/runs/${held.body.id}/cancel`, undefined, token)
      assert.strictEqual(cancel.status, 200)
      for (let i = 0; i < 100 && model.aborted() === abortedBefore; i++) yield* sleep(50)
      assert.isAbove(model.aborted(), abortedBefore, "the runner's model call was interrupted")
    }), 110_000)
})
