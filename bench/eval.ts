/**
 * Evaluation (part of `npm run bench`, BENCH_ONLY=eval): a BENCH_EVAL_ROWS (1,000) row dataset
 * scored against a one-step AI Employee (each row a real run, then the judge) with a model that
 * answers at once: rows scored per second, from the run's creation to its completion.
 */
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { benchDatabase, benchPlatform, json } from "./support.js"

const ROWS = Number(process.env.BENCH_EVAL_ROWS ?? 1_000)

const sse = (text: string) =>
  [
    { choices: [{ index: 0, delta: { content: text }, finish_reason: "stop" }] },
    { choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }
  ].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n"

/** Answers targets with text and the judge with its scores, at once. */
const model = Effect.acquireRelease(
  Effect.async<{ baseUrl: string; close: () => void }>((resume) => {
    const server = createServer((req, res) => {
      let body = ""
      req.on("data", (c: Buffer) => (body += c.toString()))
      req.on("end", () => {
        const judge = body.includes("Score the answer below")
        const stream = sse(judge ? "{\"score\": 4}" : "ok")
        res.writeHead(200, { "content-type": "text/event-stream", "content-length": Buffer.byteLength(stream) })
        res.end(stream)
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      })))
  }),
  (m) => Effect.sync(() => m.close())
)

export const evalBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const { baseUrl } = yield* model
  const concurrency = process.env.EVAL_CONCURRENCY ?? "32"
  const { base, token } = yield* benchPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: baseUrl, LLM_MODELS: "bench-model", EVAL_CONCURRENCY: concurrency })
  const w = yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name: "Graded" })
  yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${w.id}`, {
    dag_definition: {
      nodes: [{ id: "a", type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "Answer {{workflow_input.q}}" } }],
      edges: []
    }
  })
  yield* json(base, token, "POST", `/api/v1/workflow/workflows/${w.id}/publish`)
  const form = new FormData()
  form.append("name", "bench")
  form.append("workflow_id", String(w.id))
  form.append("file", new Blob([["q", ...Array.from({ length: ROWS }, (_, i) => `question ${i}`)].join("\n")], { type: "text/csv" }), "bench.csv")
  const dataset = yield* Effect.promise(() =>
    fetch(`${base}/api/v1/eval/datasets`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form }).then((r) =>
      r.json() as Promise<{ id: string }>
    )
  )
  yield* json(base, token, "POST", `/api/v1/eval/datasets/${dataset.id}/mapping`, { input_map: { q: "q" } })
  const rubric = yield* json(base, token, "POST", "/api/v1/eval/rubrics", {
    workflow_id: w.id,
    name: "r",
    rubric_schema: { type: "object", required: ["score"], properties: { score: { type: "integer" } } },
    rubric_instructions: "Score it"
  })
  const config = yield* json(base, token, "POST", "/api/v1/eval/configs", { workflow_id: w.id, name: "c", target_type: "workflow", rubric_id: rubric.id })
  const t0 = performance.now()
  const run = yield* json(base, token, "POST", "/api/v1/eval/runs", { config_id: config.id, dataset_id: dataset.id })
  let state: Record<string, unknown> = run
  while (state.status !== "completed" && state.status !== "failed") {
    yield* Effect.sleep("100 millis")
    state = yield* json(base, token, "GET", `/api/v1/eval/runs/${String(run.id)}`)
  }
  const seconds = (performance.now() - t0) / 1000
  return [
    `eval: ${ROWS} rows, each a real run of a one-step AI Employee and a judge call, EVAL_CONCURRENCY ${concurrency}`,
    `  RESULT_EVAL_ROWS ${(ROWS / seconds).toFixed(1)} rows/s (${seconds.toFixed(1)} s; ${String(state.completed_rows)} completed, ${
      String(state.failed_rows)
    } failed)`
  ]
}))
