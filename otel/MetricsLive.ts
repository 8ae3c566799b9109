import { Metrics, Resource } from "@effect/opentelemetry"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { type MetricReader, PeriodicExportingMetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics"
import { Config, Effect, Layer, Metric, Option, Runtime, Schedule } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { AppConfig } from "../platform/Config.js"
import { GenericPlanPool, PgPool } from "../platform/PreparedSql.js"
import { onceAMinute } from "./ExportGuard.js"
import { dbPool, eventLoopDelay } from "./Metrics.js"
import { serviceIdentity } from "./ServiceIdentity.js"

const SAMPLE_EVERY = "5 seconds"

/** OTLP metric export whose failures are reported (an exporter otherwise fails silently). */
const reporting = (inner: PushMetricExporter, report: (what: string, error: unknown) => void): PushMetricExporter => ({
  export: (metrics, done) =>
    inner.export(metrics, (result) => {
      if (result.code !== 0) report("Exporting metrics over OTLP", result.error ?? "the collector refused them")
      done(result)
    }),
  forceFlush: () => inner.forceFlush(),
  shutdown: () => inner.shutdown(),
  ...(inner.selectAggregationTemporality !== undefined ? { selectAggregationTemporality: inner.selectAggregationTemporality.bind(inner) } : {}),
  ...(inner.selectAggregation !== undefined ? { selectAggregation: inner.selectAggregation.bind(inner) } : {})
})

/**
 * The OpenTelemetry metrics pipeline over the platform's Effect metrics: a Prometheus reader
 * that `GET /metrics` collects on demand (no server of its own), and with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` an OTLP/HTTP export every `OTEL_METRIC_EXPORT_INTERVAL` ms (15 s). Event-loop delay and the
 * database pools (both, summed) are sampled every 5 s (untraced).
 */
export class MetricsEndpoint extends Effect.Service<MetricsEndpoint>()("MetricsEndpoint", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const pools = [yield* PgPool, yield* GenericPlanPool]
    const count = (of: (pool: PgPool["Type"]) => number) => pools.reduce((sum, pool) => sum + of(pool), 0)
    const identity = serviceIdentity(config)
    const runtime = yield* Effect.runtime<never>()
    const report = onceAMinute((message) => Runtime.runFork(runtime)(Effect.logWarning(message)))
    // The OpenTelemetry SDK's own variable for the export interval (milliseconds).
    const exportEvery = yield* Config.integer("OTEL_METRIC_EXPORT_INTERVAL").pipe(Config.withDefault(15_000), Effect.orDie)
    const prometheus = new PrometheusExporter({ preventServerStart: true })
    const readers: [MetricReader, ...Array<MetricReader>] = [
      prometheus,
      ...Option.toArray(Option.map(config.otlpEndpoint, (endpoint) =>
        new PeriodicExportingMetricReader({
          exporter: reporting(new OTLPMetricExporter({ url: `${endpoint.replace(/\/$/, "")}/v1/metrics` }), report),
          exportIntervalMillis: exportEvery
        })))
    ]
    yield* Layer.buildWithScope(
      Metrics.layer(() => readers).pipe(
        Layer.provide(Resource.layer({ serviceName: identity.serviceName, attributes: identity.attributes }))
      ),
      yield* Effect.scope
    )
    const serializer = new PrometheusSerializer()

    const delay = monitorEventLoopDelay({ resolution: 10 })
    delay.enable()
    yield* Effect.addFinalizer(() => Effect.sync(() => delay.disable()))
    const sample = Effect.suspend(() => {
      const quantiles = { p50: delay.percentile(50), p99: delay.percentile(99), max: delay.max }
      delay.reset()
      return Effect.all([
        ...Object.entries(quantiles).map(([q, ns]) => Metric.set(eventLoopDelay.pipe(Metric.tagged("quantile", q)), ns / 1e9)),
        Metric.set(dbPool.pipe(Metric.tagged("state", "idle")), count((pool) => pool.idleCount)),
        Metric.set(dbPool.pipe(Metric.tagged("state", "used")), count((pool) => pool.totalCount - pool.idleCount)),
        Metric.set(dbPool.pipe(Metric.tagged("state", "pending")), count((pool) => pool.waitingCount))
      ], { discard: true })
    })
    yield* sample.pipe(Effect.repeat(Schedule.spaced(SAMPLE_EVERY)), Effect.withTracerEnabled(false), Effect.forkScoped)

    return {
      /** Every metric in the Prometheus text format (0.0.4). */
      scrape: Effect.promise(() => prometheus.collect()).pipe(
        Effect.map(({ resourceMetrics }) => serializer.serialize(resourceMetrics)),
        Effect.withTracerEnabled(false)
      )
    }
  })
}) {}
