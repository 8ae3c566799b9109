import { assert, describe, it } from "@effect/vitest"
import { Effect, FiberRef, Option } from "effect"
import { serviceSpans, spanAttributes, traced } from "../../platform/Traced.js"

/** The span an operation runs in, and the attributes of the span around it after it ran. */
const service = traced("Orders", {
  place: (id: string) => Effect.map(Effect.currentSpan, (span) => `${span.name} ${id}`).pipe(spanAttributes({ "order.id": id })),
  label: (id: string) => `order ${id}`
})

const inOuterSpan = Effect.gen(function*() {
  const ranIn = yield* service.place("42")
  const outer = yield* Effect.currentSpan
  return { ranIn, outerAttribute: Option.fromNullable(outer.attributes.get("order.id")) }
}).pipe(Effect.withSpan("request"))

describe("service operation spans (platform/Traced.ts)", () => {
  it.effect("each operation runs in a span of its own, which carries its attributes", () =>
    Effect.gen(function*() {
      const { outerAttribute, ranIn } = yield* inOuterSpan
      assert.strictEqual(ranIn, "Orders.place 42")
      assert.isTrue(Option.isNone(outerAttribute))
      assert.strictEqual(service.label("7"), "order 7")
    }))

  it.effect("with service spans off (no exporter) no span is opened, and the caller's span gets none of the attributes", () =>
    Effect.gen(function*() {
      const { outerAttribute, ranIn } = yield* Effect.locally(inOuterSpan, serviceSpans, false)
      assert.strictEqual(ranIn, "request 42")
      assert.isTrue(Option.isNone(outerAttribute))
      assert.isTrue(yield* FiberRef.get(serviceSpans))
    }))
})
