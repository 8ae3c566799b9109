import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken, createMember } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { lastUser, ScriptedModel } from "../support/ScriptedModel.js"

const execute = (token: string, body: unknown) => http("POST", "/api/v1/agent/agents/test-execute", { token, body })

const intents = [
  { name: "billing", description: "payments", eligibility: [{ ref: "workflow_input.plan", op: "eq", value: "pro" }] },
  { name: "other" }
]

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("agents API", (it) => {
  it.effect("the agent-type catalog lists every type with its versions and schemas", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const types = yield* http("GET", "/api/v1/agent/agent-types", { token })
      assert.strictEqual(types.status, 200)
      assert.deepStrictEqual(types.body.items.map((t: { type: string }) => t.type), [
        "intent_classification",
        "search_respond",
        "extraction",
        "rule_validation",
        "respond",
        "custom"
      ])
      const ic = types.body.items[0]
      assert.strictEqual(ic.live_version, "v1")
      assert.deepStrictEqual(ic.versions.map((v: { status: string }) => v.status), ["deprecated", "live", "pre-release"])
      const one = yield* http("GET", "/api/v1/agent/agent-types/extraction/v1", { token })
      assert.strictEqual(one.body.status, "live")
      assert.deepStrictEqual(one.body.type_config_schema.required, ["schema"])
      assert.strictEqual((yield* http("GET", "/api/v1/agent/agent-types/extraction/v7", { token })).status, 404)
    }))

  it.effect("agent definitions: create, list (paginated), get, replace, delete; the type and its config are checked", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const body = { name: "Router", agent_type: "intent_classification", system_prompt_template: "Route it", type_config: { intents } }
      const created = yield* http("POST", "/api/v1/agent/agent-definitions", { token, body })
      assert.strictEqual(created.status, 201)
      assert.strictEqual(created.body.type_version, "v1")
      const bad = yield* http("POST", "/api/v1/agent/agent-definitions", { token, body: { ...body, type_config: {} } })
      assert.strictEqual(bad.status, 422)
      assert.strictEqual(bad.body.code, "TYPE_CONFIG_INVALID")
      const unknown = yield* http("POST", "/api/v1/agent/agent-definitions", { token, body: { ...body, agent_type: "oracle" } })
      assert.strictEqual(unknown.status, 422)
      const list = yield* http("GET", "/api/v1/agent/agent-definitions?page_size=1", { token })
      assert.strictEqual(list.body.total, 1)
      const replaced = yield* http("PUT", `/api/v1/agent/agent-definitions/${created.body.id}`, { token, body: { ...body, name: "Router 2" } })
      assert.strictEqual(replaced.body.name, "Router 2")
      assert.strictEqual((yield* http("GET", `/api/v1/agent/agent-definitions/${created.body.id}`, { token })).body.name, "Router 2")
      const user = yield* createMember(token, "user")
      const uToken = yield* loginToken(user.email, user.password)
      assert.strictEqual((yield* http("POST", "/api/v1/agent/agent-definitions", { token: uToken, body })).status, 403)
      assert.strictEqual((yield* http("DELETE", `/api/v1/agent/agent-definitions/${created.body.id}`, { token })).status, 204)
      assert.strictEqual((yield* http("GET", `/api/v1/agent/agent-definitions/${created.body.id}`, { token })).status, 404)
    }))

  it.effect("test-execute respond: output, tokens and the per-model breakdown; kept in the execution history", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => ({ text: `Hi ${lastUser(r)}`, usage: { prompt_tokens: 12, completion_tokens: 4 } }))
      const r = yield* execute(token, { agent_config: { agent_type: "respond", system_prompt_template: "Greet" }, inputs: { name: "Ada" } })
      assert.strictEqual(r.status, 200)
      assert.strictEqual(r.body.status, "completed")
      assert.deepStrictEqual(r.body.output, { text: "Hi {\"name\":\"Ada\"}" })
      assert.strictEqual(r.body.tokens_used, 16)
      assert.deepStrictEqual(r.body.token_breakdown, { "test-model": { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } })
      const got = yield* http("GET", `/api/v1/agent/agents/test-executions/${r.body.id}`, { token })
      assert.strictEqual(got.body.status, "completed")
      const list = yield* http("GET", "/api/v1/agent/agents/test-executions", { token })
      assert.isAtLeast(list.body.total, 1)
    }))

  it.effect("test-execute intent_classification: the intent, its confidence and per-intent eligibility", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: JSON.stringify({ intent: "billing", confidence: 0.9 }) }))
      const config = { agent_type: "intent_classification", system_prompt_template: "Classify", type_config: { intents } }
      const pro = yield* execute(token, { agent_config: config, inputs: { plan: "pro", text: "refund" } })
      assert.deepStrictEqual(pro.body.output, { intent: "billing", confidence: 0.9, eligible: true })
      const free = yield* execute(token, { agent_config: config, inputs: { plan: "free", text: "refund" } })
      assert.deepStrictEqual(free.body.output, { intent: "billing", confidence: 0.9, eligible: false })
      const sent = model.requests.at(-1) as unknown as { response_format: { json_schema: { schema: { properties: { intent: { enum: Array<string> } } } } } }
      assert.deepStrictEqual(sent.response_format.json_schema.schema.properties.intent.enum, ["billing", "other"])
      model.setScript(() => ({ text: JSON.stringify({ intent: "weather", confidence: 1 }) }))
      const off = yield* execute(token, { agent_config: config, inputs: {} })
      assert.strictEqual(off.body.status, "failed")
    }))

  it.effect("test-execute extraction: a reply that breaks the schema is retried once, then the execution fails", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const schema = { type: "object", required: ["amount"], properties: { amount: { type: "number" } } }
      const config = { agent_type: "extraction", system_prompt_template: "Extract", type_config: { schema } }
      let n = 0
      model.setScript(() => ({ text: ++n === 1 ? "{\"amount\": \"twelve\"}" : "{\"amount\": 12}" }))
      const fixed = yield* execute(token, { agent_config: config, inputs: { text: "pay 12" } })
      assert.strictEqual(fixed.body.status, "completed")
      assert.deepStrictEqual(fixed.body.output, { amount: 12 })
      assert.strictEqual(n, 2)
      model.setScript(() => ({ text: "not json at all" }))
      const broken = yield* execute(token, { agent_config: config, inputs: { text: "pay" } })
      assert.strictEqual(broken.body.status, "failed")
      assert.include(broken.body.error, "does not match the schema after a retry")
    }))

  it.effect("a model error fails the execution with its message; a step without its type_config says so", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ status: 400 }))
      const failed = yield* execute(token, { agent_config: { agent_type: "respond", system_prompt_template: "x" }, inputs: {} })
      assert.strictEqual(failed.body.status, "failed")
      assert.include(failed.body.error, "Model answered 400")
      const later = yield* execute(token, { agent_config: { agent_type: "rule_validation", system_prompt_template: "x" }, inputs: {} })
      assert.strictEqual(later.body.status, "failed")
      assert.include(later.body.error, "rule_validation needs type_config.rules")
      const missing = yield* execute(token, {
        agent_config: { agent_type: "respond", system_prompt_template: "x", input_schema: { type: "object", required: ["q"] } },
        inputs: {}
      })
      assert.strictEqual(missing.status, 422)
    }))

  it.effect("workflow agent nodes run through the same code: an intent branch in a published AI Employee", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => (r.response_format !== undefined ? { text: JSON.stringify({ intent: "other", confidence: 0.7 }) } : { text: "general answer" }))
      const id = yield* publishedWorkflow(token, {
        nodes: [
          {
            id: "route",
            type: "agent",
            agent_config: { agent_type: "intent_classification", type_version: "v1", system_prompt_template: "Route", type_config: { intents } }
          },
          { id: "answer", type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Answer" } }
        ],
        edges: [{ from: "route", to: "answer", condition: { ref: "nodes.route.output.intent", op: "eq", value: "other" } }]
      })
      const run = yield* startRun(token, id, { plan: "pro" })
      const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed", JSON.stringify(done))
      assert.deepStrictEqual(done.output, { text: "general answer" })
    }))
})
