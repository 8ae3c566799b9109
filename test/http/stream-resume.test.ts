import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken } from "../support/Fixtures.js"
import { publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { parseSse, readStream, startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"

const RUNS = 40
const DISCONNECTS = 1_000
const TERMINAL = ["run_completed", "run_failed", "run_cancelled"]

const step = (id: string) => ({
  id,
  type: "agent",
  name: id,
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: `Step ${id}` }
})
const NODES = ["a", "b", "c", "d", "e", "f"]
const dag = { nodes: NODES.map(step), edges: NODES.slice(1).map((id, i) => ({ from: NODES[i], to: id })) }

/**
 * One client of a run's stream that hangs up at random points (after a random number of bytes,
 * often in the middle of an event) and reconnects with the last complete event's id as
 * Last-Event-ID (WHATWG server-sent events), until the run's terminal event.
 */
const flakyReader = (baseUrl: string, token: string, runId: string, budget: { left: number }) =>
  Effect.promise(async () => {
    const seen: Array<number> = []
    let disconnects = 0
    for (;;) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "text/event-stream" }
      if (seen.length > 0) headers["last-event-id"] = String(seen.at(-1))
      const controller = new AbortController()
      const response = await fetch(`${baseUrl}/api/v1/workflow/runs/${runId}/stream`, { headers, signal: controller.signal })
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      const cutAt = budget.left > 0 ? 20 + Math.floor(Math.random() * 400) : Number.POSITIVE_INFINITY
      let text = ""
      let bytes = 0
      let ended = false
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }))
        if (chunk.done) {
          ended = true
          break
        }
        bytes += chunk.value.byteLength
        text += decoder.decode(chunk.value, { stream: true })
        if (bytes >= cutAt) {
          // The connection drops here: what arrived after this byte is lost with it.
          text = text.slice(0, cutAt)
          break
        }
      }
      // Only complete events count: a block cut in its middle is read again after the reconnect.
      const complete = text.slice(0, text.lastIndexOf("\n\n") + 2)
      const events = parseSse(complete)
      seen.push(...events.map((e) => e.id))
      const terminal = events.some((e) => TERMINAL.includes(e.data.type))
      if (!ended) {
        controller.abort()
        await reader.cancel().catch(() => undefined)
        disconnects++
        budget.left--
      }
      if (terminal) return { seen, disconnects }
      if (ended && budget.left <= 0 && events.length === 0) await new Promise((r) => setTimeout(r, 20))
    }
  })

layer(RunPlatformLive(), { excludeTestServices: true, timeout: "240 seconds" })("stream resumption", (it) => {
  it.effect(`${DISCONNECTS} forced disconnects of SSE clients across ${RUNS} live runs, each resumed with Last-Event-ID: no gap, no duplicate, no reordering`, () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const { baseUrl } = yield* TestPlatform
      const model = yield* ScriptedModel
      model.setScript(() => ({ chunks: ["one ", "two ", "three ", "four ", "five ", "six"], delayMs: 25 }))
      const workflow = yield* publishedWorkflow(token, dag)
      const budget = { left: DISCONNECTS }
      const runs = yield* Effect.forEach(Array.from({ length: RUNS }), () => Effect.map(startRun(token, workflow, {}), (r) => r.body.id as string), {
        concurrency: 8
      })
      const clients = yield* Effect.forEach(runs, (runId) => flakyReader(baseUrl, token, runId, budget), { concurrency: RUNS })
      const total = clients.reduce((n, c) => n + c.disconnects, 0)
      assert.isAtLeast(total, DISCONNECTS, "the clients were cut off as often as planned")
      for (const [i, runId] of runs.entries()) {
        assert.strictEqual((yield* waitForStatus(token, runId, ["completed", "failed"])).status, "completed")
        const whole = (yield* readStream(token, runId)).events.map((e) => e.id)
        assert.isAbove(whole.length, 20, "a run streams many events")
        assert.deepStrictEqual(clients[i].seen, whole, `run ${runId}: the resumed reads are the stream, in order, each event once`)
      }
    }))
})
