import { NodeSdk } from "@effect/opentelemetry"
import { assert, describe, it } from "@effect/vitest"
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer"
import { resourceFromAttributes } from "@opentelemetry/resources"
import type { ReadableSpan, SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Fiber, Layer, Tracer } from "effect"
import { type CompactSpan, expandSpan, spanSet } from "../../otel/CompactSpan.js"
import { makeLightTracer } from "../../otel/LightTracer.js"
import { type OtlpSpan, otlpSpan } from "../../otel/OtlpSpan.js"
import { runTraceId } from "../../otel/RunTraceIds.js"

const KEEP = "bp.run_id"
const parent = Tracer.externalSpan({ traceId: "1".repeat(32), spanId: "2".repeat(16), sampled: true })
const linked = Tracer.externalSpan({ traceId: "3".repeat(32), spanId: "4".repeat(16), sampled: true })

/** Spans of every shape the platform makes: attributes of each type, events, links, failures, interruption. */
const program = Effect.gen(function*() {
  yield* Effect.gen(function*() {
    yield* Effect.annotateCurrentSpan({ text: "x", int: 3, double: 1.5, flag: true, big: 10n, object: { a: 1 } })
    yield* Effect.logInfo("an event")
    yield* Effect.void.pipe(Effect.withSpan("child", { attributes: { [KEEP]: "run", kind: "inner" }, kind: "client" }))
  }).pipe(Effect.withSpan("root", { parent, attributes: { [KEEP]: "run" }, links: [{ _tag: "SpanLink", span: linked, attributes: { "bp.link": "x" } }] }))
  yield* Effect.fail(new Error("boom")).pipe(Effect.withSpan("fails", { attributes: { [KEEP]: "run" } }), Effect.ignore)
  const fiber = yield* Effect.never.pipe(Effect.withSpan("interrupted", { attributes: { [KEEP]: "run" } }), Effect.fork)
  yield* Effect.yieldNow()
  yield* Fiber.interrupt(fiber)
  yield* Effect.void.pipe(Effect.withSpan("not kept"))
})

const collect = (): [Array<ReadableSpan>, SpanProcessor] => {
  const spans: Array<ReadableSpan> = []
  return [spans, {
    onStart: () => {},
    onEnd: (span) => void spans.push(span),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve()
  }]
}

const serialized = (span: ReadableSpan): OtlpSpan =>
  (JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest([span]))) as {
    resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan> }> }>
  }).resourceSpans[0].scopeSpans[0].spans[0]

/** What may differ between two runs of the same program: ids and times. */
const shape = (span: OtlpSpan) =>
  JSON.parse(
    JSON.stringify(span, (key, value) =>
      key === "spanId" || key === "startTimeUnixNano" || key === "endTimeUnixNano" || key === "timeUnixNano" || key === "exception.stacktrace" ||
        (key === "parentSpanId" && value !== parent.spanId) || (key === "traceId" && value !== parent.traceId && value !== linked.traceId)
        ? "*"
        : value)
  ) as unknown

describe("OTLP spans", () => {
  it.effect("the direct conversion is what the OTLP JSON exporter sends", () =>
    Effect.gen(function*() {
      const [spans, processor] = collect()
      yield* program.pipe(Effect.provide(NodeSdk.layer(() => ({ resource: { serviceName: "test" }, spanProcessor: processor }))))
      assert.isAtLeast(spans.length, 5)
      for (const span of spans) assert.deepStrictEqual(otlpSpan(span), serialized(span))
    }))

  it.effect("the light tracer records the spans the OpenTelemetry bridge records, and only the kept ones", () =>
    Effect.gen(function*() {
      const [sdkSpans, processor] = collect()
      yield* program.pipe(Effect.provide(NodeSdk.layer(() => ({ resource: { serviceName: "test" }, spanProcessor: processor }))))
      const lightSpans: Array<ReadableSpan> = []
      const tracer = makeLightTracer({
        resource: resourceFromAttributes({ "service.name": "test" }),
        scope: "test",
        keepAttribute: KEEP,
        onEnd: (span) => void lightSpans.push(span)
      })
      yield* program.pipe(Effect.provide(Layer.setTracer(tracer)))
      const kept = sdkSpans.filter((s) => typeof s.attributes[KEEP] === "string")
      assert.deepStrictEqual(lightSpans.map((s) => s.name), kept.map((s) => s.name))
      lightSpans.forEach((span, i) => {
        assert.deepStrictEqual(shape(otlpSpan(span)), shape(otlpSpan(kept[i])), span.name)
        assert.strictEqual(span.instrumentationScope.name, kept[i].instrumentationScope.name)
      })
      const root = lightSpans.find((s) => s.name === "root")!
      const child = lightSpans.find((s) => s.name === "child")!
      assert.strictEqual(child.parentSpanContext?.spanId, root.spanContext().spanId)
      assert.strictEqual(root.spanContext().traceId, parent.traceId)
    }))

  it.effect("a run's spans stored compactly come back as the OTLP spans they were, in under half the bytes", () =>
    Effect.gen(function*() {
      const [spans, processor] = collect()
      yield* program.pipe(Effect.provide(NodeSdk.layer(() => ({ resource: { serviceName: "test" }, spanProcessor: processor }))))
      const runId = "0b9b7a1e-5d3c-4f8e-9a6b-2c1d0e9f8a7b"
      // As stored: the run's own id and trace (the root span's parent is the run's root).
      const stored = spans.filter((s) => s.attributes[KEEP] === "run").map((s) => {
        const otlp = otlpSpan(s)
        const attributes = (otlp.attributes as Array<{ key: string; value: unknown }>).map((a) =>
          a.key === KEEP ? { key: KEEP, value: { stringValue: runId } } : a
        )
        return { scope: s.instrumentationScope.name, span: { ...otlp, traceId: runTraceId(runId), attributes } }
      })
      assert.isAtLeast(stored.length, 4)
      const set = spanSet(runId, stored)!
      const read = JSON.parse(JSON.stringify(set.spans)) as ReadonlyArray<CompactSpan>
      assert.deepStrictEqual(read.map((c) => expandSpan(runId, set.scope, c)), stored)
      assert.isBelow(JSON.stringify(set.spans).length * 2, JSON.stringify(stored).length)
    }))
})
