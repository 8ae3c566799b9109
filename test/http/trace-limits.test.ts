import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { attr, logsOf, runTrace, spansOf, type TraceBody } from "../support/Traces.js"
import { respondNode } from "../support/Workflows.js"

const CAP = 12_000

const finished = (token: string, workflowId: string) =>
  Effect.gen(function*() {
    const run = yield* startRun(token, workflowId, {})
    yield* waitForStatus(token, run.body.id, ["completed"])
    return run.body.id as string
  })

layer(RunPlatformLive({ TRACE_MAX_BYTES: String(CAP) }), { excludeTestServices: true, timeout: "60 seconds" })("trace size cap", (it) => {
  it.effect("over the cap the largest attribute values are cut first; the structure stays", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "short answer" }))
      const huge = `Instructions ${"x".repeat(40_000)}`
      const id = yield* publishedWorkflow(token, { nodes: [respondNode("ask", huge)] })
      const runId = yield* finished(token, id)
      const r = yield* runTrace(token, runId)
      assert.strictEqual(r.status, 200)
      assert.isAtMost(Buffer.byteLength(r.text), CAP)
      const body = r.body as TraceBody
      assert.isTrue(body.truncated)
      const call = spansOf(body).find((s) => s.name === "llm.call")!
      const instructions = String(attr(call, "llm.instructions"))
      assert.isTrue(instructions.startsWith("Instructions xxx"))
      assert.isTrue(instructions.endsWith("…[truncated]"))
      assert.isBelow(instructions.length, 12_000)
      // Small values are untouched, and every span and log record is still there.
      assert.strictEqual(attr(call, "llm.output"), "short answer")
      assert.deepStrictEqual(spansOf(body).map((s) => s.name).sort(), ["agent.run", "llm.call", "node ask", "run Helper"])
      assert.isAbove(logsOf(body).length, 0)
    }))

  it.effect("a trace still over the cap after truncation is 413 on the run endpoint; the listing pages instead", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const nodes = Array.from({ length: 12 }, (_, i) => respondNode(`step_${i}`))
      const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id }))
      const id = yield* publishedWorkflow(token, { nodes, edges })
      const runId = yield* finished(token, id)
      const r = yield* runTrace(token, runId)
      assert.strictEqual(r.status, 413)
      assert.strictEqual(r.body.code, "TRACE_TOO_LARGE")

      const small = yield* publishedWorkflow(token, { nodes: [respondNode("ask")] })
      const ids = [yield* finished(token, small), yield* finished(token, small), yield* finished(token, small)]
      const page = yield* http("GET", `/api/v1/workflow/workflows/${small}/runs/trace`, { token })
      assert.strictEqual(page.status, 200)
      assert.isAtMost(Buffer.byteLength(page.text), CAP)
      assert.isBelow(page.body.runs.length, 3)
      assert.strictEqual(page.body.runs[0].run_id, ids[2])
      const rest = yield* http("GET", `/api/v1/workflow/workflows/${small}/runs/trace?page_token=${page.body.next_page_token}`, { token })
      // The next page starts with the run right after the last one shown.
      assert.strictEqual(rest.body.runs[0].run_id, ids[2 - page.body.runs.length])
    }))
})
