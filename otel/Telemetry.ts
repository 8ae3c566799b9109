import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer"
import { type Resource, resourceFromAttributes } from "@opentelemetry/resources"
import { BatchSpanProcessor, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { SqlClient } from "@effect/sql"
import { Context, Duration, Effect, Layer, Option, Runtime, Schedule } from "effect"
import { AppConfig } from "../services/shared/Config.js"
import { RUN_ID } from "./RunTrace.js"

export const SERVICE_NAME = "builder-platform"

/** One span in OTLP JSON (`resourceSpans[].scopeSpans[].spans[]`). */
export type OtlpSpan = Record<string, unknown> & { readonly traceId: string; readonly spanId: string; readonly startTimeUnixNano: string }

const decoder = new TextDecoder()

/** A span's OTLP JSON form and its instrumentation scope. */
export const toOtlp = (span: ReadableSpan): { readonly scope: string; readonly span: OtlpSpan } => {
  const request = JSON.parse(decoder.decode(JsonTraceSerializer.serializeRequest([span]))) as {
    resourceSpans: Array<{ scopeSpans: Array<{ scope?: { name?: string }; spans: Array<OtlpSpan> }> }>
  }
  const scope = request.resourceSpans[0]!.scopeSpans[0]!
  return { scope: scope.scope?.name ?? "", span: scope.spans[0]! }
}

const MAX_BUFFERED = 50_000
const FLUSH_EVERY = Duration.millis(250)

/** Keeps the spans that carry `bp.run_id` until they are written; `write` is set once the store exists. */
class RunSpanProcessor implements SpanProcessor {
  buffer: Array<ReadableSpan> = []
  flushNow: () => Promise<void> = () => Promise.resolve()
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    if (typeof span.attributes[RUN_ID] !== "string") return
    if (this.buffer.length >= MAX_BUFFERED) this.buffer.shift()
    this.buffer.push(span)
  }
  forceFlush(): Promise<void> {
    return this.flushNow()
  }
  shutdown(): Promise<void> {
    return this.flushNow()
  }
}

/**
 * The two span processors behind the Effect tracer: one stores the spans of runs in PostgreSQL
 * in OTLP form (always on: the trace endpoints read them), the other exports every span over
 * OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (Jaeger, Tempo, a collector).
 */
export class Telemetry extends Context.Tag("Telemetry")<Telemetry, {
  readonly processors: ReadonlyArray<SpanProcessor>
  readonly resource: Resource
  /** Hands a span built outside the tracer (a call_aie step) to every processor. */
  readonly emit: (span: ReadableSpan) => Effect.Effect<void>
  /** Exports a span without storing it (a run's root span: the trace endpoints build it from the run). */
  readonly export: (span: ReadableSpan) => Effect.Effect<void>
  /** Writes the run spans ended so far: a node activity waits for it, so its spans outlive a crash. */
  readonly flush: Effect.Effect<void>
}>() {
  static readonly layer = Layer.scoped(
    Telemetry,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const config = yield* AppConfig
      const runtime = yield* Effect.runtime<never>()
      const store = new RunSpanProcessor()

      const write = Effect.suspend(() => {
        const spans = store.buffer.splice(0)
        if (spans.length === 0) return Effect.void
        const rows = spans.map((s) => {
          const { scope, span } = toOtlp(s)
          return { run_id: s.attributes[RUN_ID], span_id: span.spanId, scope, start: span.startTimeUnixNano, otlp: span }
        })
        return sql`INSERT INTO run_spans (run_id, span_id, tenant_id, scope, start_unix_nano, otlp)
          SELECT v.run_id, v.span_id, r.tenant_id, v.scope, v.start, v.otlp
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(run_id uuid, span_id text, scope text, start bigint, otlp jsonb)
          JOIN runs r ON r.id = v.run_id
          ON CONFLICT (run_id, span_id) DO NOTHING`.pipe(
          Effect.catchAll((e) => Effect.logWarning(`Storing ${rows.length} run spans failed`, e)),
          Effect.asVoid
        )
      }).pipe(Effect.withTracerEnabled(false))
      const flush = Effect.uninterruptible(write)
      store.flushNow = () => Runtime.runPromise(runtime)(flush)
      yield* flush.pipe(Effect.repeat(Schedule.spaced(FLUSH_EVERY)), Effect.forkScoped)
      yield* Effect.addFinalizer(() => flush)

      const exporter = Option.map(config.otlpEndpoint, (endpoint) =>
        new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, "")}/v1/traces` }), { scheduledDelayMillis: 1000 }))
      const processors: ReadonlyArray<SpanProcessor> = [store, ...Option.toArray(exporter)]
      return {
        processors,
        resource: resourceFromAttributes({ "service.name": SERVICE_NAME }),
        emit: (span) => Effect.sync(() => processors.forEach((p) => p.onEnd(span))),
        export: (span) => Effect.sync(() => Option.map(exporter, (p) => p.onEnd(span))),
        flush
      }
    })
  )
}
