import { Effect, FiberRef, Metric, MetricBoundaries, MetricKey, MetricLabel } from "effect"

type Tag = readonly [name: string, value: string]

/**
 * A metric by its tags: each series made once from its tagged key and kept. `Metric.tagged` derives
 * the tagged key again at every update (a new key with its hash and string form, then a registry
 * lookup), about 2% of a run's CPU over the ~15 tagged updates of a 3-node run. Tags come in the
 * order given; their values come from small sets (node types, route templates, statuses, models).
 */
const series = <M>(make: (labels: ReadonlyArray<MetricLabel.MetricLabel>) => M) => {
  const made = new Map<string, M>()
  return (...tags: ReadonlyArray<Tag>): M => {
    const id = tags.map(([name, value]) => `${name}\u0000${value}`).join("\u0001")
    const known = made.get(id)
    if (known !== undefined) return known
    const metric = make(tags.map(([name, value]) => MetricLabel.make(name, value)))
    if (made.size < 10_000) made.set(id, metric)
    return metric
  }
}

const histogramBy = (name: string, boundaries: MetricBoundaries.MetricBoundaries, description: string) => {
  const key = MetricKey.histogram(name, boundaries, description)
  return series((labels) => Metric.fromMetricKey(MetricKey.taggedWithLabels(key, labels)))
}

const counterBy = (name: string, description: string) => {
  const key = MetricKey.counter(name, { description, incremental: true })
  return series((labels) => Metric.fromMetricKey(MetricKey.taggedWithLabels(key, labels)))
}

/**
 * The platform's metrics, as Effect metrics (recorded from any fiber, no service to carry): the
 * OpenTelemetry bridge (MetricsLive) reads them for `GET /metrics` and OTLP. Names follow the
 * OpenTelemetry semantic conventions where one exists (HTTP server, GenAI client); the rest are
 * `bp.*`. Histograms of durations are in seconds.
 */
const seconds = MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120, 300])

export const httpServerDuration = histogramBy(
  "http.server.request.duration",
  seconds,
  "Duration of HTTP server requests (seconds), by method, route template and status"
)
export const httpServerActive = Metric.gauge("http.server.active_requests", { description: "HTTP requests being served" })

export const runsStarted = counterBy("bp.runs.started", "Runs created, by trigger type")
export const runsEnded = counterBy("bp.runs.ended", "Runs that reached a terminal status (completed, failed, cancelled), by trigger type and status")
export const runsPaused = counterBy("bp.runs.paused", "Times runs paused (HITL, a wait), by trigger type")
export const runsRecovered = Metric.counter("bp.runs.recovered", {
  description:
    "Runs the recovery sweep handed to the kernel again, by reason: start (unfinished when the sweep began), quiet (no news for 5 s: their process died)",
  incremental: true
})
export const runsQueued = Metric.gauge("bp.runs.queued", {
  description:
    "Runs waiting for their tenant's slot on this runner process, by state: waiting (in memory), parked (only their id kept: launched again when a slot frees)"
})
export const runStartsRefused = counterBy(
  "bp.run_starts.refused",
  "Run starts refused with 429, by reason: rate (the tenant's max_run_starts_per_second), busy (its fair share while this process is overloaded)"
)
export const runStartsSharedRate = Metric.gauge("bp.run_starts.shared_rate", {
  description: "Starts a second each tenant may make while this process is overloaded and several tenants start runs (0: no pacing)"
})
export const runnersLoopLag = Metric.gauge("bp.runners.loop_lag", {
  description:
    "On a process that accepts run starts for runner processes: how late (ms) the latest runner's event loop runs, as the runners report it (0: all on time)"
})
export const runsInFlight = Metric.gauge("bp.runs.in_flight", { description: "Runs active on this runner process" })
export const nodeDuration = histogramBy("bp.node.duration", seconds, "Duration of node executions (seconds), by node type and outcome")
export const journalGroupSize = Metric.histogram(
  "bp.journal.group_size",
  MetricBoundaries.fromIterable([1, 2, 4, 8, 16, 32, 64]),
  "Runs' journal commits written per statement (group commit)"
)
export const journalGroupFallbacks = Metric.counter("bp.journal.group_fallbacks", {
  description: "Group-commit statements that failed and were written entry by entry (one entry's constraint, a lost connection)",
  incremental: true
})
export const retentionRemoved = Metric.counter("bp.retention.removed", {
  description: "What retention removed, by kind: runs (with their journal), run_details (runs whose spans and tokens went), executions",
  incremental: true
})

export const modelTokens = counterBy("gen_ai.client.token.usage", "Model tokens, by model and token type (input, output)")
export const modelDuration = histogramBy("gen_ai.client.operation.duration", seconds, "Duration of model calls (seconds), by model and outcome")

export const sseOpen = Metric.gauge("bp.sse.streams.open", { description: "Server-sent event streams open on this process" })

export const eventLoopDelay = Metric.gauge("nodejs.eventloop.delay", {
  description: "Event-loop delay over the last 5 s (seconds), by quantile (p50, p99, max)"
})
export const dbPool = Metric.gauge("db.client.connection.count", { description: "PostgreSQL pool connections, by state (idle, used, pending)" })

const MODEL_LABELS = 50
const seenModels = new Set<string>()

/**
 * A model's name as a metric label. Tenants name models of their own providers, so the label is
 * bounded: a plain name (at most 64 characters), among the first 50 this process saw; any other
 * is `other` (no series explosion, no arbitrary tenant text on `/metrics`).
 */
export const modelLabel = (model: string) => {
  if (seenModels.has(model)) return model
  if (seenModels.size >= MODEL_LABELS || !/^[\w.:/-]{1,64}$/.test(model)) return "other"
  seenModels.add(model)
  return model
}

/**
 * Records `value` in a metric, as `Metric.update` does, in two steps of the fiber runtime instead of
 * four: the fiber's metric labels are read from the fiber, not through an effect of their own. A
 * run records about 20 values (bench/README.md, thirty-second session).
 */
export const record = <Type, In, Out>(metric: Metric.Metric<Type, In, Out>, value: In): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    metric.unsafeUpdate(value, fiber.getFiberRef(FiberRef.currentMetricLabels))
    return Effect.void
  })

/** Adds `by` to a gauge's current value (gauges of things that open and close), as `Metric.modify` does, in two steps. */
export const gaugeAdd = (gauge: Metric.Metric.Gauge<number>, by: number): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    gauge.unsafeModify(by, fiber.getFiberRef(FiberRef.currentMetricLabels))
    return Effect.void
  })
