import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { uuidV7Time } from "../../platform/TimedId.js"
import { adminToken } from "../support/Fixtures.js"
import { http, type Json } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive, sleep } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { publish, respondNode, saveDag } from "../support/Workflows.js"

import { api, isJudge, isSimulator, judged, rubricSchema, scoresOf, setUp, standardScript, stats, untilEnded, upload } from "../support/EvalFixtures.js"

layer(RunPlatformLive({ EVAL_CONCURRENCY: "4" }), { excludeTestServices: true, timeout: "90 seconds" })("evaluation", (it) => {
  it.effect("a CSV becomes rows, a run scores every row through real runs and the judge, and the aggregates are the scores' statistics", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      standardScript(model)
      const ids = yield* setUp(token, 12)
      const dataset = yield* http("GET", `${api}/datasets/${ids.datasetId}`, { token })
      assert.deepInclude(dataset.body, { headers: ["question", "expected"], row_count: 12, mapped_rows: 12 })
      const page = yield* http("GET", `${api}/datasets/${ids.datasetId}/rows?page=2&page_size=5`, { token })
      assert.strictEqual(page.body.total, 12)
      assert.deepStrictEqual(page.body.items[0].inputs, { question: "q5" })
      assert.deepStrictEqual(page.body.items[0].expected_output, { answer: "answer 5, exactly" })

      const created = yield* http("POST", `${api}/runs`, { token, body: { config_id: ids.configId, dataset_id: ids.datasetId } })
      assert.strictEqual(created.status, 202, created.text)
      assert.deepInclude(created.body, { status: "pending", total_rows: 12, completed_rows: 0, is_preview: false })
      const run = yield* untilEnded(token, created.body.id)
      assert.strictEqual(run.status, "completed", JSON.stringify(run))
      assert.deepInclude(run, { completed_rows: 12, failed_rows: 0 })
      const expected = Array.from({ length: 12 }, (_, i) => scoresOf(`q${i}`))
      const accuracy = stats(expected.map((s) => s.accuracy))
      const helpful = stats(expected.map((s) => Number(s.helpful)))
      for (const [field, want] of [["accuracy", accuracy], ["helpful", helpful]] as const) {
        const got = run.aggregate_metrics.rubric_scores[field]
        for (const k of ["mean", "median", "p5", "p95"] as const) assert.closeTo(got[k], want[k], 1e-9, `${field}.${k}`)
      }
      assert.deepInclude(run.aggregate_metrics, { total_rows: 12, completed_rows: 12, failed_rows: 0 })

      const results = yield* http("GET", `${api}/runs/${run.id}/results?page_size=100&status=completed`, { token })
      assert.strictEqual(results.body.total, 12)
      const first = results.body.items[0]
      assert.deepInclude(first, { status: "completed", position: 0, rubric_scores: scoresOf("q0") })
      assert.deepStrictEqual(first.actual_output, { text: "reply to Answer: q0" })
      assert.isNumber(first.duration_ms)
      assert.isAbove(Object.keys(first.token_usage).length, 0)
      // Each row is a real run with its trace, told apart by trigger_type eval.
      const workflowRun = yield* http("GET", `/api/v1/workflow/runs/${first.workflow_run_id}`, { token })
      // A scored run shares its eval run's time, so its day's partition of the run tables.
      assert.strictEqual(uuidV7Time(first.workflow_run_id), uuidV7Time(run.id))
      assert.isDefined(uuidV7Time(run.id))
      assert.deepInclude(workflowRun.body, { trigger_type: "eval", status: "completed" })
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/runs/${first.workflow_run_id}/trace`, { token })).status, 200)
      assert.strictEqual((yield* http("GET", `${api}/results/${first.id}`, { token })).body.id, first.id)
      assert.strictEqual((yield* http("GET", `${api}/runs/${run.id}/results?status=failed`, { token })).body.total, 0)
      const listed = yield* http("GET", `${api}/runs?config_id=${ids.configId}&status=completed`, { token })
      assert.strictEqual(listed.body.total, 1)

      // A preview scores the first five rows.
      const preview = yield* http("POST", `${api}/runs`, { token, body: { config_id: ids.configId, dataset_id: ids.datasetId, is_preview: true } })
      assert.deepInclude(preview.body, { total_rows: 5, is_preview: true })
      assert.strictEqual((yield* untilEnded(token, preview.body.id)).completed_rows, 5)
      assert.strictEqual((yield* http("GET", `${api}/runs?is_preview=true&dataset_id=${ids.datasetId}`, { token })).body.total, 1)

      // Compare: paired by row; deltas where both scored.
      const compared = yield* http("GET", `${api}/runs/compare?run_id_1=${run.id}&run_id_2=${preview.body.id}`, { token })
      assert.strictEqual(compared.status, 200, compared.text)
      assert.strictEqual(compared.body.pairs.length, 12)
      assert.deepStrictEqual(compared.body.pairs[0].score_deltas, { accuracy: 0, helpful: 0 })
      assert.isNull(compared.body.pairs[11].result_2)
      const other = yield* setUp(token, 2)
      const otherRun = yield* http("POST", `${api}/runs`, { token, body: { config_id: other.configId, dataset_id: other.datasetId } })
      const mismatch = yield* http("GET", `${api}/runs/compare?run_id_1=${run.id}&run_id_2=${otherRun.body.id}`, { token })
      assert.strictEqual(mismatch.status, 422)
      assert.strictEqual(mismatch.body.code, "EVAL_DATASET_MISMATCH")
      yield* untilEnded(token, otherRun.body.id)

      // Terminal runs cannot be cancelled; referenced rubrics and configs cannot be deleted.
      const again = yield* http("POST", `${api}/runs/${run.id}/cancel`, { token })
      assert.strictEqual(again.status, 409)
      assert.strictEqual(again.body.code, "EVAL_RUN_TERMINAL")
      assert.strictEqual((yield* http("DELETE", `${api}/rubrics/${ids.rubricId}`, { token })).body.code, "EVAL_RUBRIC_IN_USE")
      assert.strictEqual((yield* http("DELETE", `${api}/configs/${ids.configId}`, { token })).body.code, "EVAL_CONFIG_IN_USE")
    }))

  it.effect("an agent target scores one node alone; a judge that keeps answering off-schema fails the row", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const ids = yield* setUp(token, 3)
      const bad = yield* http("POST", `${api}/configs`, {
        token,
        body: { workflow_id: ids.workflowId, name: "x", target_type: "agent", target_node_id: "nope", rubric_id: ids.rubricId }
      })
      assert.strictEqual(bad.status, 422)
      assert.strictEqual(bad.body.code, "EVAL_TARGET_INVALID")
      const agentConfig = yield* http("POST", `${api}/configs`, {
        token,
        body: { workflow_id: ids.workflowId, name: "Node", target_type: "agent", target_node_id: "answer", rubric_id: ids.rubricId }
      })
      assert.strictEqual(agentConfig.status, 201, agentConfig.text)
      let judgeCalls = 0
      model.setScript((r) => {
        if (!isJudge(r)) return { text: "node reply" }
        judgeCalls++
        const q = String(judged(r).inputs.question)
        return { text: q === "q1" ? JSON.stringify({ accuracy: 9 }) : JSON.stringify(scoresOf(q)) }
      })
      const created = yield* http("POST", `${api}/runs`, { token, body: { config_id: agentConfig.body.id, dataset_id: ids.datasetId } })
      const run = yield* untilEnded(token, created.body.id)
      assert.deepInclude(run, { status: "completed", completed_rows: 2, failed_rows: 1 })
      const results = (yield* http("GET", `${api}/runs/${run.id}/results`, { token })).body.items as Array<Record<string, Json>>
      assert.deepStrictEqual(results.map((r) => r.status), ["completed", "failed", "completed"])
      assert.deepStrictEqual(results[0].actual_output, { text: "node reply" })
      assert.isNull(results[0].workflow_run_id, "the node ran alone, not as a run")
      assert.include(results[1].error, "did not match the rubric schema twice")
      assert.strictEqual(judgeCalls, 4, "one retry for the off-schema row")
    }))

  it.effect("a run fails when it scores nothing: every row failed, its target node gone from the version, no model for the judge", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const ids = yield* setUp(token, 3)
      model.setScript((r) => isJudge(r) ? { text: "not json" } : { text: "reply" })
      const allFailed = yield* untilEnded(
        token,
        (yield* http("POST", `${api}/runs`, { token, body: { config_id: ids.configId, dataset_id: ids.datasetId } })).body.id
      )
      assert.deepInclude(allFailed, { status: "failed", completed_rows: 0, failed_rows: 3 })
      assert.match(allFailed.error, /^Every row failed; the first: .*rubric schema/)

      // The config scores node "answer"; the latest saved version (a draft) no longer has it.
      standardScript(model)
      const nodeConfig = yield* http("POST", `${api}/configs`, {
        token,
        body: { workflow_id: ids.workflowId, name: "Node", target_type: "agent", target_node_id: "answer", rubric_id: ids.rubricId }
      })
      yield* saveDag(token, ids.workflowId, { nodes: [respondNode("reply", "Answer: {{workflow_input.question}}")], edges: [] })
      const gone = yield* untilEnded(
        token,
        (yield* http("POST", `${api}/runs`, { token, body: { config_id: nodeConfig.body.id, dataset_id: ids.datasetId } })).body.id
      )
      assert.deepInclude(gone, { status: "failed", completed_rows: 0, failed_rows: 3 })
      assert.match(gone.error, /has no agent node 'answer'/)
      const goneResults = (yield* http("GET", `${api}/runs/${gone.id}/results`, { token })).body.items as Array<Record<string, Json>>
      assert.deepStrictEqual(goneResults.map((r) => r.status), ["failed", "failed", "failed"])

      // Own providers only, and the workspace has none: nothing can judge.
      yield* http("PATCH", `/api/v1/workflow/workflows/${ids.workflowId}/llm-config`, { token, body: { use_own_providers: true } })
      yield* saveDag(token, ids.workflowId, { nodes: [respondNode("answer", "Answer again: {{workflow_input.question}}")], edges: [] })
      const noJudge = yield* untilEnded(
        token,
        (yield* http("POST", `${api}/runs`, { token, body: { config_id: ids.configId, dataset_id: ids.datasetId } })).body.id
      )
      assert.deepInclude(noJudge, { status: "failed", completed_rows: 0, failed_rows: 3 })
      assert.match(noJudge.error, /No model is available to the judge/)
      assert.strictEqual((yield* http("GET", `${api}/runs?status=failed&config_id=${ids.configId}`, { token })).body.total, 2)
    }))

  it.effect("a simulated user drives a chat AI Employee for max_turns; the judge scores the whole conversation", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const ids = yield* setUp(token, 1)
      const chatId = (yield* http("POST", "/api/v1/workflow/workflows", { token, body: { name: "Support chat", interaction_type: "chat" } })).body.id as string
      yield* saveDag(token, chatId, { nodes: [respondNode("answer", "Help the customer")], edges: [] })
      assert.strictEqual((yield* publish(token, chatId)).status, 200)
      const rubric = yield* http("POST", `${api}/rubrics`, {
        token,
        body: { workflow_id: chatId, name: "Conversation", rubric_schema: rubricSchema, rubric_instructions: "Judge the conversation." }
      })
      const config = yield* http("POST", `${api}/configs`, {
        token,
        body: {
          workflow_id: chatId,
          name: "Simulated",
          target_type: "workflow",
          rubric_id: rubric.body.id,
          simulator_model: "test-model",
          simulator_instructions: "You want a refund for order 7.",
          max_turns: 3
        }
      })
      let judgedTranscript: unknown
      model.setScript((r) => {
        if (isJudge(r)) {
          judgedTranscript = judged(r).transcript
          return { text: JSON.stringify({ accuracy: 4, helpful: true }) }
        }
        if (isSimulator(r)) return { text: `user turn ${r.messages.filter((m) => m.role === "user").length + 1}` }
        return { text: `assistant reply ${r.messages.filter((m) => m.role === "user").length}` }
      })
      const created = yield* http("POST", `${api}/runs`, { token, body: { config_id: config.body.id, dataset_id: ids.datasetId } })
      const run = yield* untilEnded(token, created.body.id)
      assert.strictEqual(run.status, "completed", JSON.stringify(run))
      const [result] = (yield* http("GET", `${api}/runs/${run.id}/results`, { token })).body.items
      assert.deepStrictEqual(result.simulator_transcript.map((m: { role: string }) => m.role), ["user", "assistant", "user", "assistant", "user", "assistant"])
      assert.deepStrictEqual(result.simulator_transcript.filter((m: { role: string }) => m.role === "user").map((m: { content: string }) => m.content), [
        "user turn 1",
        "user turn 2",
        "user turn 3"
      ])
      assert.deepStrictEqual(judgedTranscript, result.simulator_transcript)
      assert.deepStrictEqual(result.rubric_scores, { accuracy: 4, helpful: true })
      const lastTurn = yield* http("GET", `/api/v1/workflow/runs/${result.workflow_run_id}`, { token })
      assert.strictEqual(lastTurn.body.input_params.chat.history.length, 4, "the third turn carries the two before it")
    }))

  it.effect("cancel mid-run: nothing is scored after it", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      const ids = yield* setUp(token, 6)
      let release: () => void = () => undefined
      const gate = new Promise<void>((resolve) => (release = resolve))
      model.setScript((r) => isJudge(r) ? { text: JSON.stringify(scoresOf(String(judged(r).inputs.question))) } : { text: "late", hold: gate })
      const created = yield* http("POST", `${api}/runs`, { token, body: { config_id: ids.configId, dataset_id: ids.datasetId } })
      yield* eventually(
        Effect.map(http("GET", `${api}/runs/${created.body.id}`, { token }), (r) => r.body.status === "running" ? true : undefined),
        "the run to start"
      )
      const cancelled = yield* http("POST", `${api}/runs/${created.body.id}/cancel`, { token })
      assert.strictEqual(cancelled.status, 200, cancelled.text)
      assert.strictEqual(cancelled.body.status, "cancelled")
      release()
      yield* sleep(1500)
      const after = yield* http("GET", `${api}/runs/${created.body.id}`, { token })
      assert.deepInclude(after.body, { status: "cancelled", completed_rows: 0, failed_rows: 0 })
      assert.strictEqual((yield* http("GET", `${api}/runs/${created.body.id}/results?status=completed`, { token })).body.total, 0)
      standardScript(model)
    }))

  it.effect("the documented 4xx: malformed, oversized and overlong CSVs, unknown columns, invalid rubric schemas, unmapped datasets", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const workflowId = yield* publishedWorkflow(token, { nodes: [respondNode("answer")], edges: [] })
      const malformed = yield* upload(token, workflowId, "a,b\n1,2\n3,\"unterminated\n4,5")
      assert.strictEqual(malformed.status, 400)
      assert.strictEqual(malformed.body.code, "INVALID_CSV")
      assert.isNumber(malformed.body.details[0].line)
      const huge = yield* upload(token, workflowId, `a\n${"x".repeat(5 * 1024 * 1024 + 10)}`)
      assert.strictEqual(huge.status, 413)
      assert.strictEqual(huge.body.code, "DATASET_TOO_LARGE")
      const long = yield* upload(token, workflowId, ["a", ...Array.from({ length: 10_001 }, (_, i) => String(i))].join("\n"))
      assert.strictEqual(long.status, 422)
      assert.strictEqual(long.body.code, "DATASET_TOO_MANY_ROWS")
      const ok = yield* upload(token, workflowId, "question\nq1")
      const unknown = yield* http("POST", `${api}/datasets/${ok.body.id}/mapping`, { token, body: { input_map: { question: "nope" } } })
      assert.strictEqual(unknown.status, 422)
      assert.strictEqual(unknown.body.code, "DATASET_UNKNOWN_COLUMN")
      const invalid = yield* http("POST", `${api}/rubrics`, {
        token,
        body: { workflow_id: workflowId, name: "r", rubric_schema: { type: "object", properties: { text: { type: "string" } } }, rubric_instructions: "x" }
      })
      assert.strictEqual(invalid.status, 422)
      assert.strictEqual(invalid.body.code, "RUBRIC_SCHEMA_INVALID")
      const missing = yield* http("POST", `${api}/rubrics`, { token, body: { workflow_id: workflowId, name: "r", rubric_schema: rubricSchema } })
      assert.strictEqual(missing.status, 400)
      const rubric = yield* http("POST", `${api}/rubrics`, {
        token,
        body: { workflow_id: workflowId, name: "r", rubric_schema: rubricSchema, rubric_instructions: "x" }
      })
      const config = yield* http("POST", `${api}/configs`, {
        token,
        body: { workflow_id: workflowId, name: "c", target_type: "workflow", rubric_id: rubric.body.id }
      })
      const unmapped = yield* http("POST", `${api}/runs`, { token, body: { config_id: config.body.id, dataset_id: ok.body.id } })
      assert.strictEqual(unmapped.status, 422)
      assert.strictEqual(unmapped.body.code, "DATASET_NOT_MAPPED")
      assert.strictEqual((yield* http("GET", `${api}/runs/00000000-0000-4000-8000-000000000000`, { token })).status, 404)
      assert.strictEqual((yield* http("DELETE", `${api}/configs/${config.body.id}`, { token })).status, 204)
      assert.strictEqual((yield* http("DELETE", `${api}/rubrics/${rubric.body.id}`, { token })).status, 204)
      assert.strictEqual((yield* http("DELETE", `${api}/datasets/${ok.body.id}`, { token })).status, 204)

      const model = yield* ScriptedModel
      model.setScript(() => ({
        text: JSON.stringify({
          name: "Politeness",
          rubric_instructions: "Judge politeness",
          rubric_schema: { type: "object", required: ["polite"], properties: { polite: { type: "integer", minimum: 1, maximum: 5 } } }
        })
      }))
      const draft = yield* http("POST", `${api}/rubrics/generate`, { token, body: { description: "How polite is the answer?" } })
      assert.strictEqual(draft.status, 200, draft.text)
      assert.deepInclude(draft.body, { name: "Politeness" })
      assert.strictEqual((yield* http("GET", `${api}/rubrics?workflow_id=${workflowId}`, { token })).body.items.length, 0, "a draft is not saved")
    }))

  it.effect("search_config overrides the knowledge search of the scored runs only", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      standardScript(model)
      const kb = (yield* http("POST", "/api/v1/ingestion/knowledge-bases", { token, body: { name: "Policies" } })).body.id as string
      for (const title of ["Refunds", "Refund windows", "Refund exceptions"]) {
        yield* http("POST", `/api/v1/ingestion/knowledge-bases/${kb}/documents`, {
          token,
          body: { title, content: `${title}: a refund is paid within 30 days.` }
        })
      }
      const workflowId = yield* publishedWorkflow(token, {
        nodes: [{
          id: "find",
          type: "agent",
          agent_config: {
            agent_type: "search_respond",
            type_version: "v1",
            system_prompt_template: "",
            knowledge_base_ids: [kb],
            type_config: { answer: false, top_k: 5 }
          }
        }],
        edges: []
      })
      const dataset = yield* upload(token, workflowId, "question\nrefund")
      yield* http("POST", `${api}/datasets/${dataset.body.id}/mapping`, { token, body: { input_map: { query: "question" } } })
      const rubric = yield* http("POST", `${api}/rubrics`, {
        token,
        body: { workflow_id: workflowId, name: "r", rubric_schema: rubricSchema, rubric_instructions: "x" }
      })
      const citations = (searchConfig: Record<string, unknown> | undefined) =>
        Effect.gen(function*() {
          const config = yield* http("POST", `${api}/configs`, {
            token,
            body: {
              workflow_id: workflowId,
              name: "s",
              target_type: "workflow",
              rubric_id: rubric.body.id,
              ...(searchConfig !== undefined ? { search_config: searchConfig } : {})
            }
          })
          const run = yield* http("POST", `${api}/runs`, { token, body: { config_id: config.body.id, dataset_id: dataset.body.id } })
          const ended = yield* untilEnded(token, run.body.id)
          const [result] = (yield* http("GET", `${api}/runs/${ended.id}/results`, { token })).body.items
          return (result.actual_output.citations as Array<unknown>).length
        })
      assert.strictEqual(yield* citations(undefined), 3)
      assert.strictEqual(yield* citations({ search_top_k: 1 }), 1)
    }))
})
