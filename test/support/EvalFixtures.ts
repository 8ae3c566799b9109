import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { http, type Json } from "./Http.js"
import { eventually, publishedWorkflow } from "./RunPlatform.js"
import { type ChatCompletionRequest, type ScriptedModel } from "./ScriptedModel.js"
import { TestPlatform } from "./TestPlatform.js"
import { respondNode } from "./Workflows.js"

/** What the evaluation tests share: the API's path, a scripted judge and simulator, datasets and their statistics. */
export const api = "/api/v1/eval"

export const rubricSchema = {
  type: "object",
  required: ["accuracy", "helpful"],
  properties: { accuracy: { type: "integer", minimum: 1, maximum: 5 }, helpful: { type: "boolean" } }
}

export const system = (r: ChatCompletionRequest) => String(r.messages[0]?.content ?? "")
export const isJudge = (r: ChatCompletionRequest) => system(r).includes("Score the answer below")
export const isSimulator = (r: ChatCompletionRequest) => system(r).startsWith("You play a user")
export const judged = (r: ChatCompletionRequest) => JSON.parse(String(r.messages[1]?.content ?? "{}")) as Record<string, Json>

/** The judge's scores for question qN: accuracy N % 5 + 1, helpful when N is even. */
export const scoresOf = (question: string) => {
  const n = Number(question.replace(/\D/g, ""))
  return { accuracy: (n % 5) + 1, helpful: n % 2 === 0 }
}

/** PostgreSQL's percentile_cont: linear interpolation between the closest ranks. */
export const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  const pos = p * (sorted.length - 1)
  const low = Math.floor(pos)
  return sorted[low] + (pos - low) * ((sorted[Math.min(low + 1, sorted.length - 1)] ?? sorted[low]) - sorted[low])
}
export const stats = (values: ReadonlyArray<number>) => ({
  mean: values.reduce((a, b) => a + b, 0) / values.length,
  median: percentile(values, 0.5),
  p5: percentile(values, 0.05),
  p95: percentile(values, 0.95)
})

export const csvOf = (n: number) => ["question,expected", ...Array.from({ length: n }, (_, i) => `q${i},"answer ${i}, exactly"`)].join("\n")

export const upload = (token: string, workflowId: string, csv: string, name = "golden") =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(async () => {
      const form = new FormData()
      form.append("name", name)
      form.append("workflow_id", workflowId)
      form.append("file", new Blob([csv], { type: "text/csv" }), "golden.csv")
      const res = await fetch(`${platform.baseUrl}${api}/datasets`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form })
      return { status: res.status, body: await res.json() as Record<string, Json> }
    }))

export const untilEnded = (token: string, runId: string, timeoutMs = 30_000) =>
  eventually(
    Effect.map(http("GET", `${api}/runs/${runId}`, { token }), (r) => ["completed", "failed", "cancelled"].includes(r.body.status) ? r.body : undefined),
    "the eval run to end",
    timeoutMs
  )

/** An AI Employee, a mapped dataset of `rows` questions, a rubric and a config targeting the whole AI Employee. */
export const setUp = (token: string, rows: number) =>
  Effect.gen(function*() {
    const workflowId = yield* publishedWorkflow(token, { nodes: [respondNode("answer", "Answer: {{workflow_input.question}}")], edges: [] })
    const dataset = yield* upload(token, workflowId, csvOf(rows))
    assert.strictEqual(dataset.status, 201, JSON.stringify(dataset.body))
    const mapped = yield* http("POST", `${api}/datasets/${dataset.body.id}/mapping`, {
      token,
      body: { input_map: { question: "question" }, expected_output_map: { answer: "expected" } }
    })
    assert.strictEqual(mapped.status, 200, mapped.text)
    const rubric = yield* http("POST", `${api}/rubrics`, {
      token,
      body: { workflow_id: workflowId, name: "Quality", rubric_schema: rubricSchema, rubric_instructions: "Judge accuracy (1-5) and helpfulness." }
    })
    assert.strictEqual(rubric.status, 201, rubric.text)
    const config = yield* http("POST", `${api}/configs`, {
      token,
      body: { workflow_id: workflowId, name: "Whole", target_type: "workflow", rubric_id: rubric.body.id, judge_model: "test-model" }
    })
    assert.strictEqual(config.status, 201, config.text)
    return { workflowId, datasetId: dataset.body.id as string, rubricId: rubric.body.id as string, configId: config.body.id as string }
  })

export const standardScript = (model: typeof ScriptedModel.Service) =>
  model.setScript((r) => {
    if (isJudge(r)) return { text: JSON.stringify(scoresOf(String(judged(r).inputs.question))) }
    return { text: `reply to ${system(r)}` }
  })
