import { Context, Effect, Tracer } from "effect"

/**
 * Sets attributes on the fiber's current span, as `Effect.annotateCurrentSpan` does (not on a span
 * whose propagation is disabled), in two steps of the fiber runtime instead of six: the span is
 * read from the fiber, not looked up through the context by effects of their own. Each node, model
 * call and agent step of a run annotates its span (bench/README.md, thirty-second session).
 */
export const annotateSpan = (attributes: Readonly<Record<string, unknown>>): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    const span = fiber.currentSpan
    if (span?._tag === "Span" && !Context.get(span.context, Tracer.DisablePropagation)) {
      for (const key in attributes) span.attribute(key, attributes[key])
    }
    return Effect.void
  })

/** The id of the fiber's current span (an Effect span, not an external parent), as `Effect.currentSpan` finds it, in two steps. */
export const currentSpanId: Effect.Effect<string | undefined> = Effect.withFiberRuntime((fiber) => {
  const span = fiber.currentSpan
  return Effect.succeed(span?._tag === "Span" ? span.spanId : undefined)
})
