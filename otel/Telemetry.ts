import { SqlClient } from "@effect/sql"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { type Resource, resourceFromAttributes } from "@opentelemetry/resources"
import { BatchSpanProcessor, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Context, Duration, Effect, Layer, Option, Runtime, Schedule, type Tracer } from "effect"
import { AppConfig } from "../platform/Config.js"
import { spanSet, type SpanSetRow } from "./CompactSpan.js"
import { ContentFreeProcessor, onceAMinute, ReportingSpanExporter } from "./ExportGuard.js"
import { makeLightTracer } from "./LightTracer.js"
import { toOtlp } from "./OtlpSpan.js"
import { RUN_ID } from "./RunTraceIds.js"
import { serviceIdentity } from "./ServiceIdentity.js"

export const SERVICE_NAME = "builder-platform"

const MAX_BUFFERED = 50_000
const FLUSH_EVERY = Duration.millis(250)

/** Keeps the spans that carry `bp.run_id`, per run, until they are written; `flushNow` is set once the store exists. */
class RunSpanProcessor implements SpanProcessor {
  byRun = new Map<string, Array<ReadableSpan>>()
  size = 0
  flushNow: () => Promise<void> = () => Promise.resolve()
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    const runId = span.attributes[RUN_ID]
    if (typeof runId !== "string" || this.size >= MAX_BUFFERED) return
    const spans = this.byRun.get(runId)
    if (spans === undefined) this.byRun.set(runId, [span])
    else spans.push(span)
    this.size += 1
  }
  take(runId: string): ReadonlyArray<ReadableSpan> {
    const spans = this.byRun.get(runId) ?? []
    this.byRun.delete(runId)
    this.size -= spans.length
    return spans
  }
  takeAll(): ReadonlyArray<ReadableSpan> {
    const spans = [...this.byRun.values()].flat()
    this.byRun.clear()
    this.size = 0
    return spans
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
  /** Writes the run spans ended so far (every 250 ms, and when the process stops). */
  readonly flush: Effect.Effect<void>
  /** Hands over one run's spans ended so far, in OTLP form, for the run's own journal commit. */
  readonly takeRun: (runId: string) => ReadonlyArray<SpanSetRow>
  /** Whether spans also go out over OTLP/HTTP. */
  readonly exporting: boolean
  /** The tracer when nothing is exported: run spans go straight to the store (see LightTracer). */
  readonly lightTracer: Tracer.Tracer
}>() {
  static readonly layer = Layer.scoped(
    Telemetry,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const config = yield* AppConfig
      const runtime = yield* Effect.runtime<never>()
      const store = new RunSpanProcessor()

      const write = Effect.suspend(() => {
        const spans = store.takeAll()
        if (spans.length === 0) return Effect.void
        const byRun = new Map<string, Array<ReturnType<typeof toOtlp>>>()
        for (const s of spans) {
          const runId = String(s.attributes[RUN_ID])
          byRun.set(runId, [...byRun.get(runId) ?? [], toOtlp(s)])
        }
        const rows = [...byRun].flatMap(([runId, otlp]) => {
          const set = spanSet(runId, otlp)
          return set === undefined ? [] : [{ run_id: runId, ...set }]
        })
        return sql`INSERT INTO run_spans (run_id, span_id, tenant_id, scope, start_unix_nano, spans)
          SELECT v.run_id, v.span_id, r.tenant_id, v.scope, v.start, v.spans
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(run_id uuid, span_id text, scope text, start bigint, spans jsonb)
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

      const report = onceAMinute((message) => Runtime.runFork(runtime)(Effect.logWarning(message)))
      const exporter = Option.map(config.otlpEndpoint, (endpoint): SpanProcessor => {
        const batch = new BatchSpanProcessor(
          new ReportingSpanExporter(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, "")}/v1/traces` }), report),
          { scheduledDelayMillis: 1000 }
        )
        return config.otelExportContent ? batch : new ContentFreeProcessor(batch)
      })
      const processors: ReadonlyArray<SpanProcessor> = [store, ...Option.toArray(exporter)]
      const resource = resourceFromAttributes(serviceIdentity(config).attributes)
      return {
        processors,
        resource,
        emit: (span) => Effect.sync(() => processors.forEach((p) => p.onEnd(span))),
        export: (span) => Effect.sync(() => Option.map(exporter, (p) => p.onEnd(span))),
        flush,
        takeRun: (runId) => {
          const set = spanSet(runId, store.take(runId).map(toOtlp))
          return set === undefined ? [] : [set]
        },
        exporting: Option.isSome(exporter),
        lightTracer: makeLightTracer({ resource, scope: SERVICE_NAME, keepAttribute: RUN_ID, onEnd: (span) => store.onEnd(span) })
      }
    })
  )
}
