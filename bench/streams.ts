/**
 * Run streams opened and closed (BENCH_ONLY=streams): what a client costs that opens a run's
 * stream, as a browser's EventSource does after every lost connection. BENCH_OPENS (1,000) opens,
 * one at a time, of (1) a completed 3-node run's stream, read to its end (the replay), and (2) a
 * live run's stream (a run paused on an approval), read up to its backlog and then dropped; then
 * (3) the same live opens by 32 clients at once over 40 paused runs (a reconnect storm). Wall time
 * and this process's CPU (platform, clients and model together) per open.
 */
import { Effect } from "effect"
import { benchDatabase, benchPlatform, instantModel, json, publishedBenchWorkflow } from "./support.js"

const OPENS = Number(process.env.BENCH_OPENS ?? 1_000)
const RUNS = 40

const node = (id: string) => ({ id, type: "agent", agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: `Step ${id}` } })

/** Opens the stream and reads it to its end, or (live) until its backlog ends with a `run_paused` event, then drops it. */
const open = (base: string, token: string, runId: string, live: boolean) =>
  Effect.promise(async () => {
    const controller = new AbortController()
    const response = await fetch(`${base}/api/v1/workflow/runs/${runId}/stream`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) break
      text += decoder.decode(chunk.value, { stream: true })
      if (live && text.includes("run_paused") && text.endsWith("\n\n")) {
        controller.abort()
        await reader.cancel().catch(() => undefined)
        break
      }
    }
    if (!text.includes(live ? "run_paused" : "run_completed")) throw new Error(`stream of ${runId} lacks its events: ${text.slice(0, 200)}`)
  })

const measure = (label: string, opens: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const cpu = process.cpuUsage()
    const started = performance.now()
    yield* opens
    const wall = performance.now() - started
    const used = process.cpuUsage(cpu)
    return `  RESULT_STREAMS ${label}: ${(wall / OPENS).toFixed(2)} ms wall, ${((used.user + used.system) / 1000 / OPENS).toFixed(2)} ms CPU an open (${
      (OPENS / wall * 1000).toFixed(0)
    } opens/s)`
  })

export const streamsBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const { base, token } = yield* benchPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "bench-model" })
  const { workflowId: chain } = yield* publishedBenchWorkflow(base, token, {
    nodes: [node("a"), node("b"), node("c")],
    edges: [{ from: "a", to: "b" }, { from: "b", to: "c" }]
  })
  const { workflowId: approval } = yield* publishedBenchWorkflow(base, token, {
    nodes: [node("a"), { ...node("ask"), hitl: { type: "approval", prompt: "Go on?", assignee: { role: "builder_admin" } } }],
    edges: [{ from: "a", to: "ask" }]
  })
  const start = (workflowId: string) =>
    Effect.map(json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/run`, { input_params: {} }), (r) => r.id as string)
  const completed = yield* Effect.forEach(Array.from({ length: RUNS }), () => start(chain), { concurrency: 8 })
  const paused = yield* Effect.forEach(Array.from({ length: RUNS }), () => start(approval), { concurrency: 8 })
  for (const [runId, status] of [...completed.map((id) => [id, "completed"]), ...paused.map((id) => [id, "paused"])]) {
    while ((yield* json(base, token, "GET", `/api/v1/workflow/runs/${runId}`)).status !== status) yield* Effect.sleep("20 millis")
  }
  // Warm-up: every path once per run.
  yield* Effect.forEach(completed, (id) => open(base, token, id, false), { discard: true })
  yield* Effect.forEach(paused, (id) => open(base, token, id, true), { discard: true })
  const sequential = (runs: ReadonlyArray<string>, live: boolean) =>
    Effect.forEach(Array.from({ length: OPENS }), (_, i) => open(base, token, runs[i % RUNS], live), { discard: true })
  return [
    `run streams: ${OPENS} opens each (${RUNS} runs)`,
    yield* measure("completed run, replayed to its end, one at a time", sequential(completed, false)),
    yield* measure("live run, backlog read then dropped, one at a time", sequential(paused, true)),
    yield* measure(
      "live run, 32 clients at once",
      Effect.forEach(Array.from({ length: OPENS }), (_, i) => open(base, token, paused[i % RUNS], true), { concurrency: 32, discard: true })
    )
  ]
}))
