import { Effect, FiberRef } from "effect"

type Operation = (...args: ReadonlyArray<unknown>) => unknown

/**
 * Whether service operations get their spans: the tracing layer turns it off when no exporter is
 * configured, since such a span would go nowhere (only spans with a run's id are stored, and those
 * are made apart from `traced`). A span costs an operation tens of Effect instructions and three
 * map copies (its context and fiber references): a run start over HTTP passes seven of them.
 */
export const serviceSpans = FiberRef.unsafeMake(true)

const spanned = (name: string, operation: Operation): Operation => (...args) => {
  const result = operation(...args)
  return Effect.isEffect(result)
    ? FiberRef.getWith(serviceSpans, (on) => on ? Effect.withSpan(result, name, { captureStackTrace: false }) : result)
    : result
}

/**
 * A service's operations, each Effect it returns in a span named `<service>.<operation>`: how a
 * service (and every repository) gets its spans in one place instead of one `withSpan` per
 * operation. Values that are not functions, and functions that return something other than an
 * Effect (a Stream, a pure helper), pass through unchanged.
 *
 * These spans carry no run id, so inside a run they are exported over OTLP as children of the
 * node's span but never stored in the run's worklog (only spans with `bp.run_id` are).
 */
export const traced = <Operations extends object>(service: string, operations: Operations): Operations => {
  const wrapped: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(operations)) {
    // A function value is called with the arguments it was given; only its result is inspected.
    wrapped[key] = typeof value === "function" ? spanned(`${service}.${key}`, value as Operation) : value
  }
  return wrapped as Operations
}

/** Attributes for the span `traced` opens around the current operation, set before it runs (none when it opens none). */
export const spanAttributes = (attributes: Record<string, unknown>) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.zipRight(FiberRef.getWith(serviceSpans, (on) => on ? Effect.annotateCurrentSpan(attributes) : Effect.void), self)
