import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { createWorkflow, respondNode } from "../support/Workflows.js"

const dag = {
  nodes: [respondNode("answer", "Answer {{workflow_input.message}}")],
  edges: [],
  input_schema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }
}

/** A public run from this client address (the test platform trusts X-Forwarded-For). */
const publicRun = (id: string, input: unknown, client: string) =>
  http("POST", `/api/v1/workflow/public/${id}/run`, { body: { input_params: input }, headers: { "x-forwarded-for": client } })

layer(RunPlatformLive({ PUBLIC_APP_RUNS_PER_MINUTE: "3", TRUST_PROXY: "true" }), { excludeTestServices: true, timeout: "60 seconds" })(
  "public app",
  (it) => {
    it.effect("with public_app on, anyone starts a run without a credential (app_public); off, unknown or archived is 404", () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const model = yield* ScriptedModel
        model.setScript(() => ({ text: "hello from the public app" }))
        const id = yield* publishedWorkflow(admin, dag)
        assert.strictEqual((yield* publicRun(id, { message: "hi" }, "198.51.100.1")).status, 404)
        assert.strictEqual((yield* http("PATCH", `/api/v1/workflow/workflows/${id}`, { token: admin, body: { public_app: true } })).status, 200)

        const started = yield* publicRun(id, { message: "hi" }, "198.51.100.1")
        assert.strictEqual(started.status, 202, started.text)
        assert.strictEqual(started.body.trigger_type, "app_public")
        assert.strictEqual(started.body.status, "pending")
        const done = yield* waitForStatus(admin, started.body.id, ["completed", "failed"])
        assert.strictEqual(done.status, "completed")
        assert.strictEqual(done.trigger_type, "app_public")

        const invalid = yield* publicRun(id, { message: 5 }, "198.51.100.1")
        assert.strictEqual(invalid.status, 400)
        assert.strictEqual(invalid.body.code, "INVALID_INPUT")
        assert.strictEqual((yield* publicRun(randomUUID(), { message: "hi" }, "198.51.100.2")).status, 404)
        const malformed = yield* publicRun("not-a-uuid", { message: "hi" }, "198.51.100.2")
        assert.strictEqual(malformed.status, 400)
        assert.strictEqual(malformed.body.code, "VALIDATION_ERROR")

        const draft = yield* createWorkflow(admin)
        yield* http("PATCH", `/api/v1/workflow/workflows/${draft.id}`, { token: admin, body: { public_app: true } })
        const unpublished = yield* publicRun(draft.id, {}, "198.51.100.3")
        assert.strictEqual(unpublished.status, 409)
        assert.strictEqual(unpublished.body.code, "NOT_PUBLISHED")

        yield* http("DELETE", `/api/v1/workflow/workflows/${id}`, { token: admin })
        assert.strictEqual((yield* publicRun(id, { message: "hi" }, "198.51.100.3")).status, 404)
      }))

    it.effect("each client address is limited per minute: 429 with Retry-After, other addresses unaffected", () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const model = yield* ScriptedModel
        model.setScript(() => ({ text: "ok" }))
        const id = yield* publishedWorkflow(admin, dag, { public_app: true })
        yield* http("PATCH", `/api/v1/workflow/workflows/${id}`, { token: admin, body: { public_app: true } })
        for (let i = 0; i < 3; i++) assert.strictEqual((yield* publicRun(id, { message: `m${i}` }, "203.0.113.7")).status, 202)
        const limited = yield* publicRun(id, { message: "one more" }, "203.0.113.7")
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.body.code, "RATE_LIMITED")
        assert.isAbove(Number(limited.headers.get("retry-after")), 0)
        assert.strictEqual((yield* publicRun(id, { message: "elsewhere" }, "203.0.113.8")).status, 202)
      }))
  }
)
