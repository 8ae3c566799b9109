import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { freePort } from "../../platform/FreePort.js"
import { platformEnv, processPlatform, waitTerminal } from "../support/ProcessPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

interface Received {
  readonly path: string
  readonly at: number
  readonly body: { resourceSpans?: Array<OtlpResource>; resourceMetrics?: Array<unknown> }
}
interface OtlpResource {
  readonly resource: { readonly attributes: ReadonlyArray<{ key: string; value: { stringValue?: string } }> }
  readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
}
interface OtlpSpan {
  readonly traceId: string
  readonly name: string
  readonly startTimeUnixNano: string
  readonly attributes?: ReadonlyArray<{ key: string }>
  readonly links?: ReadonlyArray<{ traceId: string }>
}

/** A collector on loopback that keeps what OTLP/HTTP (JSON) sends it. */
const collector = (port: number) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: Server; readonly received: Array<Received> }>((resume) => {
      const received: Array<Received> = []
      const server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          received.push({ path: req.url ?? "", at: Date.now(), body: req.headers["content-type"]?.includes("json") === true ? JSON.parse(text) : {} })
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(port, "127.0.0.1", () => resume(Effect.succeed({ server, received })))
    }),
    ({ server }) => Effect.sync(() => server.close())
  )

const spansOf = (received: ReadonlyArray<Received>) =>
  received.flatMap((r) => (r.body.resourceSpans ?? []).flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans.map((span) => ({ span, resource: rs.resource })))))

layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "120 seconds" })("operations", (it) => {
  it.scoped("metrics, JSON logs and OTLP traces an operator can use: per-role service name, no idle traces, no content, request linked to run, failures logged", () =>
    Effect.gen(function*() {
      const db = yield* migratedDatabase
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "secret model output", delayMs: 50 }))
      const otlpPort = yield* freePort
      const otlp = yield* collector(otlpPort)
      const platform = yield* processPlatform({
        ...platformEnv("ops", db.url, model.baseUrl),
        PORT: String(yield* freePort),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "bp-ops-")),
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpPort}`,
        OTEL_METRIC_EXPORT_INTERVAL: "1000",
        LOG_FORMAT: "json",
        LOG_LEVEL: "info",
        METRICS_TOKEN: "scrape-token"
      })
      yield* platform.start
      const api = platform.api

      // Idle: background loops export no traces (metrics, yes).
      yield* sleep(1000)
      const idleFrom = Date.now()
      yield* sleep(3000)
      yield* sleep(1500)
      // Spans begun in the window (a batch sent in it may still carry the start's probes).
      const idle = spansOf(otlp.received).filter((s) =>
        Number(BigInt(s.span.startTimeUnixNano) / 1_000_000n) >= idleFrom && Number(BigInt(s.span.startTimeUnixNano) / 1_000_000n) < idleFrom + 3000
      )
      assert.deepStrictEqual([...new Set(idle.map((s) => s.span.name))], [], "no span while idle")
      assert.isAbove(otlp.received.filter((r) => r.path === "/v1/metrics").length, 0, "metrics go out over OTLP")

      const token = (yield* api("POST", "/api/v1/auth/login", { email: "ops@admin.test", password: "ops-admin-password" })).body.access_token as string
      const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Ops" }, token)
      yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, {
        dag_definition: {
          nodes: [{
            id: "a",
            type: "agent",
            name: "a",
            agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: "secret instructions" }
          }],
          edges: []
        }
      }, token)
      assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)
      const started = yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/run`, { input_params: {} }, token)
      assert.strictEqual(started.status, 202, started.text)
      const runId = started.body.id as string
      assert.strictEqual((yield* waitTerminal(api, token, runId)).status, "completed")
      const runTrace = runId.replace(/-/g, "")
      for (let i = 0; i < 60 && !spansOf(otlp.received).some((s) => s.span.traceId === runTrace); i++) yield* sleep(100)
      yield* sleep(1500)
      const spans = spansOf(otlp.received)

      const serviceNames = new Set(spans.map((s) => s.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue))
      assert.deepStrictEqual([...serviceNames], ["builder-platform"])
      assert.isTrue(spans.every((s) => s.resource.attributes.some((a) => a.key === "service.instance.id")), "every span names its instance")
      const runSpans = spans.filter((s) => s.span.traceId === runTrace)
      assert.isAbove(runSpans.length, 1, "the run's spans are exported")
      const keys = new Set(spans.flatMap((s) => (s.span.attributes ?? []).map((a) => a.key)))
      for (const content of ["llm.instructions", "llm.input", "llm.output"]) assert.isFalse(keys.has(content), `${content} is not exported`)
      assert.isTrue(keys.has("gen_ai.request.model"), "models and tokens are")
      // The API's own trace keeps its role rules: an env_admin sees the content.
      const stored = yield* api("GET", `/api/v1/workflow/runs/${runId}/trace`, undefined, token)
      assert.include(stored.text, "secret instructions")
      // The request that started the run links to the run's trace.
      const linked = spans.filter((s) => (s.span.links ?? []).some((l) => l.traceId === runTrace) && s.span.traceId !== runTrace)
      assert.isAbove(linked.length, 0, "a span of the starting request links to the run's trace")

      // A stream of the ended run replays and closes.
      assert.strictEqual((yield* api("GET", `/api/v1/workflow/runs/${runId}/stream`, undefined, token)).status, 200)

      // /metrics: Prometheus text behind METRICS_TOKEN.
      assert.strictEqual((yield* api("GET", "/metrics")).status, 401)
      const scrape = yield* api("GET", "/metrics", undefined, undefined, { headers: { authorization: "Bearer scrape-token" } })
      assert.strictEqual(scrape.status, 200)
      assert.match(scrape.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/)
      for (
        const series of [
          /http_server_request_duration_count\{http_request_method="POST",http_route="\/api\/v1\/workflow\/workflows\/:id\/run",http_response_status_code="202"/,
          /bp_runs_started_total\{trigger_type="ui"[^}]*\} 1\b/,
          /bp_runs_ended_total\{[^}]*status="completed"[^}]*\} 1\b/,
          /bp_node_duration_count\{node_type="agent",outcome="completed"[^}]*\} 1\b/,
          /gen_ai_client_token_usage_total\{gen_ai_request_model="test-model",gen_ai_token_type="output"/,
          /gen_ai_client_operation_duration_count\{gen_ai_request_model="test-model",outcome="ok"/,
          /bp_runs_in_flight\{[^}]*\} 0\b/,
          /bp_sse_streams_open\{[^}]*\} 0\b/,
          /nodejs_eventloop_delay\{quantile="p99"/,
          /db_client_connection_count\{state="idle"/
        ]
      ) assert.match(scrape.text, series)

      // JSON logs: one object a line; an access line per request with its route template.
      const lines = platform.output().split("\n").filter((l) => l.startsWith("{"))
      const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
      assert.isAbove(records.length, 5)
      assert.isTrue(records.every((r) => typeof r.level === "string" && typeof r.time === "string" && typeof r.message === "string"))
      const access = records.find((r) => r.message === "request" && r.route === "/api/v1/workflow/workflows/:id/run")
      assert.isDefined(access)
      assert.strictEqual(access.method, "POST")
      assert.strictEqual(access.status, 202)
      assert.isNumber(access.duration_ms)
      assert.strictEqual(access.request_id, started.headers.get("x-request-id"))

      // The collector goes away: the failure is logged, once a minute, not per export.
      yield* Effect.promise(() => new Promise<void>((r) => otlp.server.close(() => r())))
      otlp.server.closeAllConnections()
      for (let n = 0; n < 3; n++) yield* api("GET", `/api/v1/workflow/runs/${runId}`, undefined, token)
      for (let i = 0; i < 80 && !/over OTLP failed/.test(platform.output()); i++) yield* sleep(100)
      yield* sleep(1500)
      const failures = platform.output().split("\n").filter((l) => /over OTLP failed/.test(l))
      assert.isAbove(failures.length, 0, "export failures are logged")
      assert.isAtMost(failures.filter((l) => l.includes("span(s)")).length, 1, "once a minute")
      assert.isAtMost(failures.filter((l) => l.includes("metrics")).length, 1, "once a minute")
    }))
})
