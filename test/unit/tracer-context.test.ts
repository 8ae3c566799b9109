import { assert, describe, it } from "@effect/vitest"
import { resourceFromAttributes } from "@opentelemetry/resources"
import { Effect, Exit, Fiber, Tracer } from "effect"
import { makeLightTracer } from "../../otel/LightTracer.js"

// patches/effect+3.22.4.patch (thirty-second session): the fiber runtime ran every step inside
// `tracer.context(() => step, fiber)`, a new closure per step (7-8% of what a run allocated). A
// tracer whose context only calls its function says so (a marked function) and the runtime then
// runs the step itself; any other tracer's context still wraps every step.

const passthrough = Symbol.for("effect/Tracer/passthroughContext")

/** Effect's own tracer, its spans kept, its context counted (and marked or not). */
const countingTracer = (native: Tracer.Tracer, marked: boolean) => {
  const calls = { n: 0 }
  const context = <X>(f: () => X): X => {
    calls.n++
    return f()
  }
  const tracer = Tracer.make({
    span: native.span,
    context: marked ? Object.assign(context, { [passthrough]: true }) : context
  })
  return { tracer, calls }
}

const program = Effect.gen(function*() {
  const child = yield* Effect.fork(Effect.sleep("1 millis").pipe(Effect.as(2), Effect.withSpan("child")))
  const failed = yield* Effect.exit(Effect.fail("no"))
  const n = yield* Fiber.join(child)
  return [n, Exit.isFailure(failed)] as const
})

describe("the tracer's context around each step (patches/effect)", () => {
  it("a tracer whose context is not marked still wraps every step, and the program's results are the same", () =>
    Effect.runPromise(Effect.gen(function*() {
      const { calls, tracer } = countingTracer(yield* Effect.tracer, false)
      const result = yield* Effect.withTracer(program, tracer)
      assert.deepStrictEqual(result, [2, true])
      assert.isAbove(calls.n, 10, "each step went through the context")
    })))

  it("a tracer whose context is marked as only calling its function is not called per step", () =>
    Effect.runPromise(Effect.gen(function*() {
      const { calls, tracer } = countingTracer(yield* Effect.tracer, true)
      const result = yield* Effect.withTracer(program, tracer)
      assert.deepStrictEqual(result, [2, true])
      assert.strictEqual(calls.n, 0)
    })))

  it("the platform's light tracer and Effect's own are marked", () =>
    Effect.runPromise(Effect.gen(function*() {
      const light = makeLightTracer({ resource: resourceFromAttributes({}), scope: "test", keepAttribute: "keep", onEnd: () => undefined })
      assert.strictEqual((light.context as unknown as Record<symbol, unknown>)[passthrough], true)
      const native = yield* Effect.tracer
      assert.strictEqual((native.context as unknown as Record<symbol, unknown>)[passthrough], true)
    })))
})
