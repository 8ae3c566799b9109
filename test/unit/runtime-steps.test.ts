import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option, Tracer } from "effect"

// patches/effect+3.22.4.patch (thirty-third session): fewer runtime steps for what every run does
// many times. `Effect.withSpan` made its span, set it as the body's parent through provideService
// and ended it through onExit: 21 runtime steps around a body. The patch does the three in one
// uninterruptible region. These tests hold it to what effect did
// (the parent span seen inside and restored after, the exit the span ends with, interruption) and
// count its steps.

interface Ended {
  readonly name: string
  readonly parent: string | undefined
  readonly exit: Exit.Exit<unknown, unknown> | undefined
  readonly stack: unknown
}

/** Effect's own tracer, each span's end recorded and each runtime step counted through an unmarked context. */
const recordingTracer = (native: Tracer.Tracer) => {
  const steps = { n: 0 }
  const ended: Array<Ended> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) => {
      const span = native.span(name, parent, context, links, startTime, kind, options)
      const end = span.end.bind(span)
      span.end = (endTime, exit) => {
        ended.push({
          name,
          parent: Option.getOrUndefined(Option.map(parent, (p) => p._tag === "Span" ? p.name : p.spanId)),
          exit,
          stack: span.attributes.get("code.stacktrace")
        })
        end(endTime, exit)
      }
      return span
    },
    context: (f) => {
      steps.n++
      return f()
    }
  })
  return { tracer, steps, ended }
}

const spanName = Effect.map(Effect.currentSpan, (span) => span.name)

/** The runtime steps `wrap` adds around `Effect.void`, and the spans it ended. */
const stepsAround = (wrap: (body: Effect.Effect<void>) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const native = yield* Effect.tracer
    const alone = recordingTracer(native)
    yield* Effect.withTracer(Effect.void, alone.tracer)
    const wrapped = recordingTracer(native)
    yield* Effect.withTracer(wrap(Effect.void), wrapped.tracer)
    return { steps: wrapped.steps.n - alone.steps.n, ended: wrapped.ended.length }
  })

describe("Effect.withSpan (patches/effect)", () => {
  it("the body sees its span as parent; the outer span is back after a success, a failure and an interruption", () =>
    Effect.runPromise(Effect.gen(function*() {
      const { ended, tracer } = recordingTracer(yield* Effect.tracer)
      const result = yield* Effect.withTracer(
        Effect.gen(function*() {
          const inner = yield* spanName.pipe(Effect.withSpan("inner"))
          const failed = yield* Effect.exit(Effect.fail("no").pipe(Effect.withSpan("failing")))
          const afterFailure = yield* spanName
          const fiber = yield* Effect.fork(Effect.never.pipe(Effect.withSpan("interrupted")))
          yield* Effect.sleep("2 millis")
          yield* Fiber.interrupt(fiber)
          const afterInterruption = yield* spanName
          return { inner, failed, afterFailure, afterInterruption }
        }).pipe(Effect.withSpan("outer")),
        tracer
      )
      assert.strictEqual(result.inner, "inner")
      assert.isTrue(Exit.isFailure(result.failed))
      assert.strictEqual(result.afterFailure, "outer")
      assert.strictEqual(result.afterInterruption, "outer")
      const byName = new Map(ended.map((e) => [e.name, e]))
      assert.deepStrictEqual([...byName.keys()].sort(), ["failing", "inner", "interrupted", "outer"])
      assert.strictEqual(byName.get("inner")?.parent, "outer")
      assert.deepStrictEqual(byName.get("inner")?.exit, Exit.succeed("inner"))
      const failing = byName.get("failing")?.exit
      assert.isTrue(failing !== undefined && Exit.isFailure(failing) && Cause.isFailType(failing.cause))
      assert.isString(byName.get("failing")?.stack, "a failed span records where it was made")
      const interrupted = byName.get("interrupted")?.exit
      assert.isTrue(interrupted !== undefined && Exit.isInterrupted(interrupted))
    })))

  it("a span around a body takes eight runtime steps (21 before the patch)", () =>
    Effect.runPromise(Effect.gen(function*() {
      const { ended, steps } = yield* stepsAround(Effect.withSpan("a", { captureStackTrace: false }))
      assert.strictEqual(ended, 1)
      assert.isAtMost(steps, 8)
    })))

  it("with tracing disabled the body still sees its span, a no-op one that is never ended, as before", () =>
    Effect.runPromise(Effect.gen(function*() {
      const { ended, tracer } = recordingTracer(yield* Effect.tracer)
      const seen = yield* Effect.withTracer(
        spanName.pipe(Effect.withSpan("hidden"), Effect.withTracerEnabled(false), Effect.withSpan("visible")),
        tracer
      )
      assert.strictEqual(seen, "hidden")
      assert.deepStrictEqual(ended.map((e) => e.name), ["visible"])
    })))
})

// The same patch: onExit ran a cleanup's answer before giving back the exit even when the cleanup
// had nothing to do. onError's and onInterrupt's cleanups answer `Effect.void` on success (every
// Effect.async with a canceler goes through onInterrupt: about 15 a run); the exit now comes back at once.
describe("Effect.onError and Effect.onInterrupt (patches/effect)", () => {
  it("their cleanups run on a failure and an interruption, not on a success, and the exits are the same", () =>
    Effect.runPromise(Effect.gen(function*() {
      const seen: Array<string> = []
      const ok = yield* Effect.succeed(1).pipe(
        Effect.onError(() => Effect.sync(() => seen.push("error after success"))),
        Effect.onInterrupt(() => Effect.sync(() => seen.push("interrupt after success")))
      )
      const failed = yield* Effect.exit(Effect.fail("no").pipe(Effect.onError((cause) => Effect.sync(() => seen.push(`error ${Cause.squash(cause)}`)))))
      const fiber = yield* Effect.fork(Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => seen.push("interrupted")))))
      yield* Effect.sleep("2 millis")
      const interrupted = yield* Fiber.interrupt(fiber)
      const cleanupFailed = yield* Effect.exit(Effect.succeed(2).pipe(Effect.onExit(() => Effect.die("cleanup"))))
      assert.strictEqual(ok, 1)
      assert.deepStrictEqual(failed, Exit.fail("no"))
      assert.isTrue(Exit.isInterrupted(interrupted))
      assert.isTrue(Exit.isFailure(cleanupFailed) && Cause.isDie(cleanupFailed.cause), "a cleanup's own failure still fails the effect")
      assert.deepStrictEqual(seen, ["error no", "interrupted"])
    })))

  it("a successful body under onError takes seven runtime steps (nine before the patch)", () =>
    Effect.runPromise(Effect.gen(function*() {
      const { steps } = yield* stepsAround(Effect.onError(() => Effect.void))
      assert.isAtMost(steps, 7)
    })))
})
