import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { type ChatCompletionRequest, ScriptedModel } from "../support/ScriptedModel.js"
import { createWorkflow, publish, saveDag } from "../support/Workflows.js"

const KB_TEMPLATE = "6f1c1a52-2f0e-4f55-9d43-0c8a3c3f6a01"

const hasToolReply = (r: ChatCompletionRequest) => (r.messages as ReadonlyArray<{ role: string }>).some((m) => m.role === "tool")

const agentNode = (id: string, config: Record<string, unknown>) => ({
  id,
  type: "agent",
  agent_config: { type_version: "v1", system_prompt_template: "Do it", ...config }
})

const failedCodes = (r: { body: { details?: ReadonlyArray<{ code: string }> } }) => (r.body.details ?? []).map((d) => d.code)

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("agent steps in AI Employees", (it) => {
  it.effect("presets: listed; retired ones are refused on new definitions and test executions", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const list = yield* http("GET", "/api/v1/agent/agent-presets", { token })
      const retired = list.body.items.filter((p: { offered: boolean }) => !p.offered).map((p: { name: string }) => p.name)
      assert.deepStrictEqual(retired, ["Search & Respond", "Knowledge Search", "Search Query Planner", "Respond"])
      const define = (preset: string, agent_type: string) =>
        http("POST", "/api/v1/agent/agent-definitions", { token, body: { name: preset, agent_type, preset, system_prompt_template: "" } })
      const ok = yield* define("answer_with_citations", "search_respond")
      assert.strictEqual(ok.status, 201)
      assert.strictEqual(ok.body.preset, "answer_with_citations")
      const old = yield* define("search_query_planner", "extraction")
      assert.strictEqual(old.status, 422)
      assert.strictEqual(old.body.code, "AGENT_PRESET_RETIRED")
      assert.strictEqual((yield* define("classify_intent", "respond")).body.code, "AGENT_PRESET_MISMATCH")
      assert.strictEqual((yield* define("nope", "respond")).body.code, "AGENT_PRESET_UNKNOWN")
      const tried = yield* http("POST", "/api/v1/agent/agents/test-execute", {
        token,
        body: { agent_config: { agent_type: "search_respond", preset: "knowledge_search", system_prompt_template: "" }, inputs: { query: "x" } }
      })
      assert.strictEqual(tried.status, 422)
      assert.strictEqual(tried.body.code, "AGENT_PRESET_RETIRED")
    }))

  it.effect("a template's retired preset keeps running; a new step with a retired preset blocks publish", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "From the knowledge base." }))
      const created = yield* http("POST", `/api/v1/workflow/templates/${KB_TEMPLATE}/create-workflow`, { token })
      assert.strictEqual(created.status, 201)
      const id = created.body.id as string
      const dag = created.body.dag_definition as { nodes: Array<Record<string, unknown>>; [k: string]: unknown }
      assert.strictEqual((dag.nodes[0].agent_config as { preset: string }).preset, "search_and_respond")
      const first = yield* publish(token, id)
      assert.strictEqual(first.status, 200, first.text)
      const run = yield* startRun(token, id, { message: "hello" })
      const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed", JSON.stringify(done))
      // The preset's default instructions fill in only what the step leaves empty.
      assert.include(model.requests.at(-1)!.messages[0].content ?? "", "Answer the question using only the knowledge base")

      // Trying the retired preset is allowed for this AI Employee, which already has such a step.
      const tried = yield* http("POST", "/api/v1/agent/agents/test-execute", {
        token,
        body: {
          agent_config: { agent_type: "search_respond", preset: "search_and_respond", system_prompt_template: "" },
          inputs: { query: "x" },
          workflow_id: id
        }
      })
      assert.strictEqual(tried.status, 200, tried.text)

      const withNew = {
        ...dag,
        nodes: [...dag.nodes, agentNode("lookup", { agent_type: "search_respond", preset: "knowledge_search" })],
        edges: [{ from: "answer", to: "lookup" }]
      }
      const saved = yield* saveDag(token, id, withNew)
      assert.include(saved.body.warnings.map((w: { code: string }) => w.code), "AGENT_PRESET_RETIRED")
      const refused = yield* publish(token, id)
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual(failedCodes(refused), ["AGENT_PRESET_RETIRED"])
      assert.strictEqual(refused.body.details[0].node_id, "lookup")

      // The same preset on a brand-new AI Employee is a new step too.
      const fresh = yield* createWorkflow(token)
      yield* saveDag(token, fresh.id, { nodes: [agentNode("answer", { agent_type: "search_respond", preset: "search_and_respond" })] })
      assert.deepStrictEqual(failedCodes(yield* publish(token, fresh.id)), ["AGENT_PRESET_RETIRED"])
      // A clone carries the template's steps with it.
      const clone = yield* http("POST", `/api/v1/ai-employees/${id}/clone`, { token, body: {} })
      yield* saveDag(token, clone.body.id, dag)
      assert.strictEqual((yield* publish(token, clone.body.id)).status, 200)
    }))

  it.effect("publish checks tools: unknown action ids and tool_config that breaks the tool's schema", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      yield* saveDag(token, w.id, {
        nodes: [
          agentNode("a", {
            agent_type: "custom",
            action_ids: ["builtin.send_email", "crm.lookup"],
            tool_config: { "builtin.send_email": { allowed_domains: "x" } }
          })
        ]
      })
      const r = yield* publish(token, w.id)
      assert.strictEqual(r.status, 422)
      assert.deepStrictEqual(failedCodes(r).sort(), ["TOOL_CONFIG_INVALID", "TOOL_NOT_FOUND"])
    }))

  it.effect("a published DAG runs custom (with a tool) and rule_validation steps; tool_config limits a tool", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((r) => {
        if (r.tools !== undefined && !hasToolReply(r)) {
          return { toolCalls: [{ id: "m1", name: "builtin_send_email", arguments: JSON.stringify({ to: "boss@elsewhere.test", subject: "Hi", body: "x" }) }] }
        }
        if (r.tools !== undefined) return { text: "Could not send: domain not allowed." }
        return { text: JSON.stringify({ results: [{ rule_id: "mentions_domain", passed: true, reason: "it does" }] }) }
      })
      const id = yield* publishedWorkflow(token, {
        input_schema: { type: "object", properties: { request: { type: "string" } } },
        nodes: [
          agentNode("act", {
            agent_type: "custom",
            action_ids: ["builtin.send_email"],
            tool_config: { "builtin.send_email": { allowed_domains: ["acme.test"] } }
          }),
          agentNode("check", {
            agent_type: "rule_validation",
            inputs: { text: "{{nodes.act.output.text}}" },
            type_config: { rules: [{ id: "mentions_domain", description: "The reply explains the domain rule" }], report: true }
          })
        ],
        edges: [{ from: "act", to: "check" }],
        outputs: [{ name: "verdict", value: "{{nodes.check.output.passed}}" }, { name: "report", value: "{{nodes.check.output.report_file_id}}" }]
      })
      const run = yield* startRun(token, id, { request: "email my boss" })
      const done = yield* waitForStatus(token, run.body.id, ["completed", "failed"])
      assert.strictEqual(done.status, "completed", JSON.stringify(done))
      assert.strictEqual(done.named_outputs.verdict, true)
      const toolAnswer = (model.requests.find((r) => hasToolReply(r))!.messages as ReadonlyArray<{ role: string; content: string }>)
        .find((m) => m.role === "tool")!.content
      assert.include(toolAnswer, "not allowed by this step's tool_config")
      const report = yield* http("GET", `/api/v1/agent/files/${done.named_outputs.report}`, { token })
      assert.strictEqual(report.status, 200)
      const steps = yield* http("GET", `/api/v1/workflow/runs/${run.body.id}/steps`, { token })
      const items = (steps.body.items ?? steps.body) as ReadonlyArray<{ node_id: string; output: unknown }>
      assert.deepStrictEqual(items.find((s) => s.node_id === "act")!.output, { text: "Could not send: domain not allowed." })
    }))
})
