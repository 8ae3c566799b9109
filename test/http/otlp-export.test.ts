import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { createServer, type Server } from "node:http"
import { freePort } from "../../platform/FreePort.js"
import { http, login, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow } from "../support/RunPlatform.js"
import { startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestPlatformLive } from "../support/TestPlatform.js"
import { spansOf, type TraceBody, traceIdOf } from "../support/Traces.js"
import { simpleDag } from "../support/Workflows.js"

/** An OTLP/HTTP receiver on loopback that keeps the bodies posted to /v1/traces. */
class OtlpReceiver extends Context.Tag("OtlpReceiver")<OtlpReceiver, { readonly url: string; readonly bodies: Array<string> }>() {
  static readonly layer = Layer.scoped(
    OtlpReceiver,
    Effect.gen(function*() {
      const port = yield* freePort
      const bodies: Array<string> = []
      const server: Server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          if (req.url === "/v1/traces") bodies.push(Buffer.concat(chunks).toString("utf8"))
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(port, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      return { url: `http://127.0.0.1:${port}`, bodies }
    })
  )
}

const Live = Layer.unwrapEffect(
  Effect.map(Effect.zip(OtlpReceiver, ScriptedModel), ([r, model]) =>
    TestPlatformLive({
      redis: false,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: r.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "test-model" }
    }))
).pipe(Layer.provideMerge(Layer.merge(OtlpReceiver.layer, ScriptedModel.layer)))

interface ExportedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
}
const exportedSpans = (bodies: ReadonlyArray<string>): Array<ExportedSpan> =>
  bodies.flatMap((b) =>
    (JSON.parse(b) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<ExportedSpan> }> }> }).resourceSpans
      .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
  )

layer(Live, { excludeTestServices: true, timeout: "60 seconds" })("OTLP export", (it) => {
  it.effect("with OTEL_EXPORTER_OTLP_ENDPOINT set, service spans arrive at the collector", () =>
    Effect.gen(function*() {
      const r = yield* login(ADMIN_EMAIL, ADMIN_PASSWORD)
      assert.strictEqual(r.status, 200)
      const receiver = yield* OtlpReceiver
      for (let i = 0; i < 100 && !receiver.bodies.some((b) => b.includes("Sessions.login")); i++) {
        yield* Effect.sleep("100 millis")
      }
      const body = receiver.bodies.find((b) => b.includes("Sessions.login"))
      assert.isDefined(body)
      assert.include(body, "builder-platform")
      // Repositories have their spans too (platform/Traced.ts), under the operation that called them.
      const spans = yield* eventually(
        Effect.sync(() => {
          const all = exportedSpans(receiver.bodies)
          return all.some((s) => s.name === "UsersRepo.touchLogin") ? all : undefined
        }),
        "the repository's span at the collector"
      )
      const signIn = spans.find((s) => s.name === "Sessions.login")
      const touch = spans.find((s) => s.name === "UsersRepo.touchLogin")
      assert.strictEqual(touch?.traceId, signIn?.traceId)
    }))

  it.effect("a run's spans reach the collector under the trace id the trace endpoint serves", () =>
    Effect.gen(function*() {
      const token = yield* loginToken(ADMIN_EMAIL, ADMIN_PASSWORD)
      const receiver = yield* OtlpReceiver
      const id = yield* publishedWorkflow(token, simpleDag())
      const run = yield* startRun(token, id, { message: "hello" })
      yield* waitForStatus(token, run.body.id, ["completed"])
      const served = (yield* http("GET", `/api/v1/workflow/runs/${run.body.id}/trace`, { token })).body as TraceBody
      const traceId = spansOf(served)[0].traceId
      assert.strictEqual(traceId, traceIdOf(run.body.id))
      const names = ["run Helper", "node answer", "agent.run", "llm.call"]
      const arrived = yield* eventually(
        Effect.sync(() => {
          const spans = exportedSpans(receiver.bodies).filter((s) => s.traceId === traceId)
          return names.every((n) => spans.some((s) => s.name === n)) ? spans : undefined
        }),
        "the run's spans at the collector"
      )
      // Same spans, same ids, same parents as the trace endpoint serves.
      for (const span of spansOf(served)) {
        const exported = arrived.find((s) => s.spanId === span.spanId)
        assert.isDefined(exported, span.name)
        assert.strictEqual(exported.parentSpanId ?? undefined, span.parentSpanId ?? undefined)
      }
      // Operators also get the SQL and service spans of the run in the same trace; the run's
      // stored worklog keeps only its own spans (no service or repository operation).
      assert.isAbove(arrived.length, spansOf(served).length)
      assert.isTrue(spansOf(served).every((s) => !/^[A-Z]\w*\.\w+$/.test(s.name)), spansOf(served).map((s) => s.name).join(", "))
    }))
})
