import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import pg from "pg"
import { RunStreamEvent } from "../../schemas/RunLifecycle.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { readStream, startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { createWorkflow, saveDag } from "../support/Workflows.js"

// Issue 36: a stored DAG never runs with nodes missing. Every earlier shape of the DAG schema
// still decodes and runs whole; a node or edge that no schema reads fails the run at once, naming it.

/** The DAG as the first schema stored it (schemas/Dag.ts at 822637c: agent steps had no `preset`). */
const firstShape = {
  input_schema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  nodes: [
    {
      id: "classify",
      type: "agent",
      name: "Classify",
      agent_config: {
        agent_type: "intent_classification",
        type_version: "v1",
        system_prompt_template: "Classify: {{workflow_input.message}}",
        inputs: { text: "{{workflow_input.message}}" },
        type_config: { intents: [{ name: "billing", description: "money" }, { name: "other" }] }
      }
    },
    {
      id: "answer",
      type: "agent",
      name: "Answer",
      agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Answer: {{workflow_input.message}}" }
    }
  ],
  edges: [{ from: "classify", to: "answer", condition: { ref: "nodes.classify.output.intent", op: "eq", value: "billing" } }],
  outputs: [{ name: "answer", value: "{{nodes.answer.output.text}}", exposed: true }]
}

const unreadable = {
  nodes: [
    { id: "draft", type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Draft" } },
    { id: "mail", type: "send_email", send_email_config: { to: "a@example.com", subject: "Hi" } }
  ],
  edges: [{ from: "draft", to: "mail" }]
}

const sql = (url: string, text: string, values: ReadonlyArray<unknown>) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query(text, [...values])).rowCount
    } finally {
      await client.end()
    }
  })

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("stored DAGs", (it) => {
  it.effect("a DAG of the first stored shape runs whole", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript((request) =>
        String(request.messages[0]?.content ?? "").includes("Classify")
          ? { text: JSON.stringify({ intent: "billing", confidence: 0.9 }) }
          : { text: "Refunds take 5 days." }
      )
      const id = yield* publishedWorkflow(token, firstShape)
      const run = (yield* startRun(token, id, { message: "Where is my refund?" })).body.id as string
      const done = yield* waitForStatus(token, run, ["completed", "failed"])
      assert.strictEqual(done.status, "completed", JSON.stringify(done))
      const steps = (yield* http("GET", `/api/v1/workflow/runs/${run}/steps`, { token })).body.items as Array<{ node_id: string; status: string }>
      assert.deepStrictEqual(steps.map((s) => [s.node_id, s.status]), [["classify", "completed"], ["answer", "completed"]])
      assert.deepStrictEqual(done.named_outputs, { answer: "Refunds take 5 days." })
      // Every event of its stream is one the lifecycle module describes, payload included.
      const stream = yield* readStream(token, run)
      const types = stream.events.map((e) => Schema.decodeUnknownSync(RunStreamEvent)(e.data).type)
      assert.deepStrictEqual([types[0], types.at(-1)], ["step_started", "run_completed"])
    }))

  it.effect("a node or edge no schema reads fails the run at once, naming it: a dry run of such a draft, and a published version changed underneath", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const { databaseUrl } = yield* TestPlatform
      const w = yield* createWorkflow(token, { name: "Half-finished" })
      yield* saveDag(token, w.id, unreadable)
      const dry = (yield* http("POST", `/api/v1/workflow/workflows/${w.id}/dry-run`, { token, body: { input_params: {} } })).body.id as string
      const failed = yield* waitForStatus(token, dry, ["completed", "failed"])
      assert.strictEqual(failed.status, "failed")
      assert.include(failed.error, "node 'mail' (send_email)")
      assert.include(failed.error, "body_text or body_html is required")
      assert.deepStrictEqual((yield* http("GET", `/api/v1/workflow/runs/${dry}/steps`, { token })).body.items, [], "no node ran")
      assert.strictEqual((yield* readStream(token, dry)).events.at(-1)?.data.type, "run_failed", "its stream ends")

      // A published version whose stored DAG lost a field (written around the API).
      const id = yield* publishedWorkflow(token, { nodes: [unreadable.nodes[0]], edges: [] })
      const changed = yield* sql(
        databaseUrl,
        `UPDATE workflow_versions SET dag_definition = jsonb_set(dag_definition::jsonb, '{edges}', '[{"from": "draft"}]')::jsonb WHERE workflow_id = $1 AND active`,
        [id]
      )
      assert.strictEqual(changed, 1)
      const run = (yield* startRun(token, id, {})).body.id as string
      const refused = yield* waitForStatus(token, run, ["completed", "failed"])
      assert.strictEqual(refused.status, "failed")
      assert.include(refused.error, "edge 1: to: is missing")
    }))

  it.effect("a failed step says why, and whether trying again can help: a step set up wrong is not retryable, a model that refused is", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const failedStep = (dag: unknown) =>
        Effect.gen(function*() {
          const id = yield* publishedWorkflow(token, dag)
          const run = (yield* startRun(token, id, {})).body.id as string
          assert.strictEqual((yield* waitForStatus(token, run, ["completed", "failed"])).status, "failed")
          const events = (yield* readStream(token, run)).events.map((e) => Schema.decodeUnknownSync(RunStreamEvent)(e.data))
          return events.find((e) => e.type === "step_failed")
        })
      const misconfigured = yield* failedStep({
        nodes: [{ id: "extract", type: "agent", agent_config: { agent_type: "extraction", type_version: "v1", system_prompt_template: "Extract" } }]
      })
      assert.deepInclude(misconfigured, { type: "step_failed", node_id: "extract", error_kind: "configuration", retryable: false })
      model.setScript(() => ({ status: 400, text: "bad request" }))
      const refused = yield* failedStep({
        nodes: [{ id: "answer", type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Answer" } }]
      })
      assert.deepInclude(refused, { type: "step_failed", node_id: "answer", error_kind: "model", retryable: true })
    }))
})
