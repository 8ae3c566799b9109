import { assert, describe, it } from "@effect/vitest"
import { Effect, Metric, Option, Tracer } from "effect"
import { annotateSpan, currentSpanId } from "../../otel/FiberSpan.js"
import { gaugeAdd, record } from "../../otel/Metrics.js"

// otel/FiberSpan.ts and otel/Metrics.ts: span attributes and metric values recorded from the fiber
// in two steps of the runtime, with what `Effect.annotateCurrentSpan`, `Effect.currentSpan`,
// `Metric.update` and `Metric.modify` give.

const attributesOf = (span: Tracer.Span) => Object.fromEntries((span as unknown as { attributes: Map<string, unknown> }).attributes)

describe("span attributes and metrics from the fiber", () => {
  it.effect("annotateSpan sets what annotateCurrentSpan sets, on the current span only", () =>
    Effect.gen(function*() {
      const [ours, effects] = yield* Effect.all([
        Effect.zipRight(annotateSpan({ a: 1, b: "x" }), Effect.orDie(Effect.currentSpan)).pipe(Effect.withSpan("ours")),
        Effect.zipRight(Effect.annotateCurrentSpan({ a: 1, b: "x" }), Effect.orDie(Effect.currentSpan)).pipe(Effect.withSpan("effect's"))
      ])
      assert.deepStrictEqual(attributesOf(ours), attributesOf(effects))
      assert.deepStrictEqual(attributesOf(ours), { a: 1, b: "x" })
      const parent = yield* Effect.gen(function*() {
        const outer = yield* Effect.orDie(Effect.currentSpan)
        yield* annotateSpan({ inner: true }).pipe(Effect.withSpan("child"))
        return outer
      }).pipe(Effect.withSpan("parent"))
      assert.deepStrictEqual(attributesOf(parent), {}, "the child's attribute is the child's")
      yield* annotateSpan({ nowhere: 1 })
    }))

  it.effect("currentSpanId is the current span's id, and undefined outside a span", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* currentSpanId)
      const [id, span] = yield* Effect.all([currentSpanId, Effect.option(Effect.currentSpan)]).pipe(Effect.withSpan("s"))
      assert.strictEqual(id, Option.getOrThrow(span).spanId)
      const external = Tracer.externalSpan({ spanId: "ext", traceId: "t" })
      assert.isUndefined(yield* Effect.withParentSpan(currentSpanId, external), "an external parent is not the fiber's own span")
    }))

  it.effect("record and gaugeAdd update the series Metric.update and Metric.modify would, with the fiber's metric labels", () =>
    Effect.gen(function*() {
      const counter = Metric.counter("test.fiber_span.counter", { incremental: true })
      yield* record(counter, 2)
      yield* record(counter, 3).pipe(Effect.tagMetrics("k", "v"))
      assert.strictEqual((yield* Metric.value(counter)).count, 2)
      assert.strictEqual((yield* Metric.value(Metric.tagged(counter, "k", "v"))).count, 3)
      const gauge = Metric.gauge("test.fiber_span.gauge")
      yield* gaugeAdd(gauge, 2)
      yield* gaugeAdd(gauge, -1)
      assert.strictEqual((yield* Metric.value(gauge)).value, 1)
    }))
})
