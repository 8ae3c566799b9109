import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { chatWorkflow, isTitleRequest, messagesOf } from "../support/Chat.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { answererDag } from "../support/Workflows.js"

// Issue 39: the chat widget's key (published in a customer's page) and the public app's reads.

const SITE = "https://www.acme.example"

const widgetKey = (token: string, workflowIds: ReadonlyArray<string>, origins: ReadonlyArray<string> = [SITE]) =>
  http("POST", "/api/v1/auth/api-keys", { token, body: { name: "Acme widget", widget: { allowed_origins: origins, workflow_ids: workflowIds } } })

layer(RunPlatformLive({ PUBLIC_APP_RUNS_PER_MINUTE: "3" }), { excludeTestServices: true, timeout: "90 seconds" })(
  "chat widget keys, public app reads",
  (it) => {
    it.effect("a widget key reaches only the widget's routes of its AI Employees, from its origins, with CORS and no credentials", () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        model.setScript((r) => isTitleRequest(r) ? { text: "W" } : { text: "Twenty-five days." })
        const workflowId = yield* chatWorkflow(token)
        const internal = yield* chatWorkflow(token)

        assert.strictEqual((yield* widgetKey(token, [workflowId], ["https://acme.example/shop"])).status, 400, "an origin has no path")
        const system = yield* http("POST", "/api/v1/auth/api-keys", {
          token,
          body: { name: "S", key_type: "system", widget: { allowed_origins: [SITE], workflow_ids: [workflowId] } }
        })
        assert.strictEqual(system.body.code, "INVALID_WIDGET_KEY")
        const created = yield* widgetKey(token, [workflowId])
        assert.strictEqual(created.status, 201, created.text)
        assert.deepStrictEqual(created.body.widget, { allowed_origins: [SITE], workflow_ids: [workflowId] })
        const key = created.body.key as string
        const listed = yield* http("GET", "/api/v1/auth/api-keys", { token })
        assert.deepStrictEqual(listed.body.items.find((k: { id: string }) => k.id === created.body.id).widget.workflow_ids, [workflowId])

        const fromSite = { origin: SITE }
        const config = yield* http("GET", `/api/v1/chat/workflows/${workflowId}`, { apiKey: key, headers: fromSite })
        assert.strictEqual(config.status, 200, config.text)
        assert.strictEqual(config.body.name, "Concierge")
        assert.strictEqual(config.headers.get("access-control-allow-origin"), SITE)
        assert.isNull(config.headers.get("access-control-allow-credentials"), "never with credentials")
        const elsewhere = yield* http("GET", `/api/v1/chat/workflows/${workflowId}`, { apiKey: key, headers: { origin: "https://evil.example" } })
        assert.strictEqual(elsewhere.status, 403)
        assert.strictEqual(elsewhere.body.code, "WIDGET_ORIGIN_NOT_ALLOWED")
        assert.strictEqual(
          (yield* http("GET", `/api/v1/chat/workflows/${internal}`, { apiKey: key, headers: fromSite })).status,
          404,
          "an AI Employee it does not name"
        )
        for (const [method, path] of [["GET", "/api/v1/chat/sessions"], ["GET", "/api/v1/workflow/workflows"], ["GET", "/api/v1/auth/users/me"]] as const) {
          const r = yield* http(method, path, { apiKey: key, headers: fromSite })
          assert.strictEqual(r.status, 403, `${method} ${path}`)
        }
        const preflight = yield* http("OPTIONS", "/api/v1/chat/external/chat", {
          headers: { origin: "https://anyone.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type, x-api-key" }
        })
        assert.strictEqual(preflight.status, 204)
        assert.strictEqual(preflight.headers.get("access-control-allow-origin"), "https://anyone.example")
        assert.isNull(preflight.headers.get("access-control-allow-credentials"))
        const otherPreflight = yield* http("OPTIONS", "/api/v1/chat/sessions", {
          headers: { origin: "https://anyone.example", "access-control-request-method": "GET" }
        })
        assert.strictEqual(otherPreflight.status, 403, "the rest of the API keeps to CORS_ORIGINS")

        const body = { workflow_id: workflowId, message: "How many days of leave?", external_user_id: "visitor-1", conversation_id: "c-1" }
        assert.strictEqual(
          (yield* http("POST", "/api/v1/chat/external/chat", { apiKey: key, headers: fromSite, body: { ...body, workflow_id: internal } })).status,
          404
        )
        const sent = yield* http("POST", "/api/v1/chat/external/chat", { apiKey: key, headers: fromSite, body })
        assert.strictEqual(sent.status, 202, sent.text)
        const stream = yield* http("GET", `/api/v1/chat/runs/${sent.body.run_id}/stream`, { apiKey: key, headers: fromSite })
        assert.strictEqual(stream.status, 200)
        assert.include(stream.text, "Twenty-five days.")
        const rated = yield* http("POST", `/api/v1/chat/messages/${sent.body.assistant_message_id}/feedback`, {
          apiKey: key,
          headers: fromSite,
          body: { sentiment: "positive" }
        })
        assert.strictEqual(rated.status, 200, rated.text)

        // A signed-in person's own chat is out of the widget's reach: their session's runs and messages.
        const own = yield* http("POST", "/api/v1/chat/sessions", { token, body: { workflow_id: workflowId } })
        const mine = yield* http("POST", `/api/v1/chat/sessions/${own.body.id}/messages`, { token, body: { content: "hi" } })
        assert.strictEqual(mine.status, 202)
        yield* eventually(messagesOf(token, own.body.id).pipe(Effect.map((m) => m.find((x) => x.role === "assistant"))), "the answer")
        assert.strictEqual((yield* http("GET", `/api/v1/chat/runs/${mine.body.run_id}/stream`, { apiKey: key, headers: fromSite })).status, 404)
        const theirs = yield* http("POST", `/api/v1/chat/messages/${mine.body.assistant_message_id}/feedback`, {
          apiKey: key,
          headers: fromSite,
          body: { sentiment: "negative" }
        })
        assert.strictEqual(theirs.status, 404)
      }))

    it.effect("a public app's page reads: its form without a credential, its visitors' runs only, nothing once unshared", () =>
      Effect.gen(function*() {
        const token = yield* adminToken
        const model = yield* ScriptedModel
        model.setScript(() => ({ text: "Twenty-five days." }))
        const workflowId = yield* publishedWorkflow(token, answererDag, { name: "Leave answers" })
        assert.strictEqual((yield* http("GET", `/api/v1/workflow/public/${workflowId}`)).status, 404, "not shared yet")
        yield* http("PATCH", `/api/v1/workflow/workflows/${workflowId}`, { token, body: { public_app: true } })
        const info = yield* http("GET", `/api/v1/workflow/public/${workflowId}`)
        assert.strictEqual(info.status, 200, info.text)
        assert.deepStrictEqual(info.body, {
          workflow_id: workflowId,
          name: "Leave answers",
          published: true,
          input_schema: answererDag.input_schema,
          runs_per_minute: 3
        })
        const started = yield* http("POST", `/api/v1/workflow/public/${workflowId}/run`, { body: { input_params: { question: "Leave?" } } })
        assert.strictEqual(started.status, 202, started.text)
        const done = yield* eventually(
          http("GET", `/api/v1/workflow/public/${workflowId}/runs/${started.body.id}`).pipe(
            Effect.map((r) => (r.body.status === "completed" ? r.body : undefined))
          ),
          "the public run's end"
        )
        assert.deepStrictEqual(done.steps, [{ node_id: "answer", node_name: "Answer", status: "completed" }])
        assert.deepStrictEqual(done.output, { text: "Twenty-five days." })
        assert.notProperty(done, "input_params", "a visitor sees progress and result, not the run's inner data")

        const staff = (yield* startRun(token, workflowId, { question: "Mine?" })).body.id as string
        yield* waitForStatus(token, staff, ["completed"])
        assert.strictEqual((yield* http("GET", `/api/v1/workflow/public/${workflowId}/runs/${staff}`)).status, 404, "a run started otherwise")
        yield* http("PATCH", `/api/v1/workflow/workflows/${workflowId}`, { token, body: { public_app: false } })
        assert.strictEqual((yield* http("GET", `/api/v1/workflow/public/${workflowId}/runs/${started.body.id}`)).status, 404, "unshared")
      }))
  }
)
