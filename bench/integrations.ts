/**
 * Integrations (part of `npm run bench`, BENCH_ONLY=integrations).
 * Executions: BENCH_EXECUTIONS (2,000) `POST /execute` calls of an HTTP function (an installed,
 * imported entry with an API key) against an instant API on loopback, 32 in flight.
 * Tool calls: BENCH_TOOL_RUNS (200) runs, one at a time, of a custom agent step whose model asks
 * for that function once: the `tool_called` duration (what the run spends on the call) against
 * the same HTTP request made directly (the call itself).
 */
import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import pg from "pg"
import { request } from "undici"
import { type EventRow, storedEvents } from "../runtime/run/RunEvents.js"
import { benchDatabase, benchPlatform, json, percentile } from "./support.js"

const EXECUTIONS = Number(process.env.BENCH_EXECUTIONS ?? 2_000)
const TOOL_RUNS = Number(process.env.BENCH_TOOL_RUNS ?? 200)

const spec = (base: string) =>
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Instant", version: "1" },
    servers: [{ url: base }],
    components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-API-Key" } } },
    paths: {
      "/items/{id}": {
        get: {
          operationId: "getItem",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "ok" } }
        }
      }
    }
  })

const listen = (server: Server) =>
  Effect.acquireRelease(
    Effect.async<string>((resume) =>
      void server.listen(0, "127.0.0.2", () => resume(Effect.succeed(`http://127.0.0.2:${(server.address() as AddressInfo).port}`)))
    ),
    () =>
      Effect.sync(() => {
        server.closeAllConnections()
        server.close()
      })
  )

/** The API the function calls: answers at once. */
const instantApi = Effect.suspend(() => {
  let base = ""
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      const body = req.url === "/openapi.json" ? spec(base) : JSON.stringify({ id: req.url?.split("/").pop(), ok: true })
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      res.end(body)
    })
  })
  return Effect.tap(listen(server), (url) => Effect.sync(() => (base = url)))
})

const sse = (chunks: ReadonlyArray<unknown>) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n"

/** A model that asks for the step's first tool once, then answers. */
const toolModel = listen(createServer((req, res) => {
  let body = ""
  req.on("data", (c: Buffer) => (body += c.toString()))
  req.on("end", () => {
    const parsed = JSON.parse(body) as { messages: Array<{ role: string }>; tools?: Array<{ function: { name: string } }> }
    const answered = parsed.messages.some((m) => m.role === "tool")
    const tool = parsed.tools?.[0]?.function.name ?? ""
    const stream = answered
      ? sse([{ choices: [{ index: 0, delta: { content: "done" }, finish_reason: "stop" }] }, {
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 }
      }])
      : sse([
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: tool, arguments: "{\"id\":\"42\"}" } }] } }] },
        { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
        { choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }
      ])
    res.writeHead(200, { "content-type": "text/event-stream", "content-length": Buffer.byteLength(stream) })
    res.end(stream)
  })
})).pipe(Effect.map((base) => `${base}/v1`))

const ms = (values: Array<number>) => {
  values.sort((a, b) => a - b)
  return { p50: percentile(values, 0.5), p99: percentile(values, 0.99) }
}

export const integrationsBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const apiBase = yield* instantApi
  const modelBase = yield* toolModel
  const { base, token } = yield* benchPlatform({
    DATABASE_URL: db.url,
    LLM_BASE_URL: modelBase,
    LLM_MODELS: "bench-model",
    OUTBOUND_ALLOWED_HOSTS: "127.0.0.2"
  })
  const entry = yield* json(base, token, "POST", "/api/v1/integrations/catalog/import-spec", { name: "instant", spec_url: `${apiBase}/openapi.json` })
  const fn = (entry.functions as Array<{ id: string }>)[0].id
  const install = (yield* json(base, token, "POST", "/api/v1/integrations/integrations", { catalog_id: entry.id })).id as string
  yield* Effect.promise(() =>
    fetch(`${base}/api/v1/integrations/integrations/${install}/credentials`, {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ capability: "agent_tool", credentials: { api_key: "k" } })
    })
  )
  yield* Effect.promise(() =>
    fetch(`${base}/api/v1/integrations/integrations/${install}/functions/getitem/enable`, { method: "POST", headers: { authorization: `Bearer ${token}` } })
  )

  const t0 = performance.now()
  yield* Effect.forEach(
    Array.from({ length: EXECUTIONS }, (_, n) => n),
    (n) =>
      json(base, token, "POST", "/api/v1/integrations/execute", { function_id: fn, input: { id: String(n) } }).pipe(
        Effect.tap((r) => r.status === "success" ? Effect.void : Effect.dieMessage(`execution ${n}: ${JSON.stringify(r)}`))
      ),
    { concurrency: 32, discard: true }
  )
  const executionsPerSecond = EXECUTIONS / ((performance.now() - t0) / 1000)

  // The call itself: the same request, made directly, one at a time.
  const direct: Array<number> = []
  for (let i = 0; i < TOOL_RUNS; i++) {
    const started = performance.now()
    const r = yield* Effect.promise(() => request(`${apiBase}/items/${i}`, { headers: { "x-api-key": "k", accept: "application/json" } }))
    yield* Effect.promise(() => r.body.text())
    direct.push(performance.now() - started)
  }

  const w = yield* json(base, token, "POST", "/api/v1/workflow/workflows", { name: "Tool user" })
  yield* json(base, token, "PATCH", `/api/v1/workflow/workflows/${w.id}`, {
    dag_definition: {
      nodes: [{ id: "a", type: "agent", agent_config: { agent_type: "custom", type_version: "v1", system_prompt_template: "Look it up", action_ids: [fn] } }],
      edges: []
    }
  })
  yield* json(base, token, "POST", `/api/v1/workflow/workflows/${w.id}/publish`)
  const client = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
  const inRun: Array<number> = []
  for (let i = 0; i < TOOL_RUNS; i++) {
    const run = yield* json(base, token, "POST", `/api/v1/workflow/workflows/${w.id}/run`, { input_params: {} })
    for (;;) {
      const rows = (yield* Effect.promise(() => client.query<{ status: string }>("SELECT status FROM runs WHERE id = $1", [run.id]))).rows
      if (rows[0]?.status === "completed") break
      if (rows[0]?.status === "failed") return yield* Effect.dieMessage(`run ${String(run.id)} failed`)
      yield* Effect.sleep("2 millis")
    }
    const rows = (yield* Effect.promise(() => client.query<EventRow>("SELECT seq, type, payload, body FROM run_events WHERE run_id = $1", [run.id]))).rows
    const event = storedEvents(String(run.id), rows).find((e) => e.type === "tool_called")
    inRun.push(Number(event?.payload.duration_ms))
  }
  const d = ms(direct)
  const r = ms(inRun)
  return [
    `integrations: ${EXECUTIONS} executions of an HTTP function, 32 in flight; ${TOOL_RUNS} runs calling it once`,
    `  RESULT_EXECUTIONS ${executionsPerSecond.toFixed(1)} executions/s`,
    `  RESULT_TOOL_CALL in a run p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms; the request alone p50 ${d.p50.toFixed(2)} ms, p99 ${
      d.p99.toFixed(2)
    } ms; added p50 ${(r.p50 - d.p50).toFixed(2)} ms`
  ]
}))
