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

// Plain `Effect.runPromise`, not `it.effect`: a test file's `it.effect` fibers were seen starting
// with `serviceSpans` off after a file that builds the platform ran in the same worker (the suite
// shares workers' modules), while a root fiber of the default runtime starts with it on, as the
// platform's own fibers do.
const run = <A, E>(effect: Effect.Effect<A, E>) => () => Effect.runPromise(effect)

describe("service operation spans (platform/Traced.ts)", () => {
  it(
    "each operation runs in a span of its own, which carries its attributes",
    run(
      Effect.gen(function*() {
        const { outerAttribute, ranIn } = yield* inOuterSpan
        assert.strictEqual(ranIn, "Orders.place 42")
        assert.isTrue(Option.isNone(outerAttribute))
        assert.strictEqual(service.label("7"), "order 7")
      })
    )
  )

  it(
    "with service spans off (no exporter) no span is opened, and the caller's span gets none of the attributes",
    run(
      Effect.gen(function*() {
        const { outerAttribute, ranIn } = yield* Effect.locally(inOuterSpan, serviceSpans, false)
        assert.strictEqual(ranIn, "request 42")
        assert.isTrue(Option.isNone(outerAttribute))
        assert.isTrue(yield* FiberRef.get(serviceSpans))
      })
    )
  )
})
