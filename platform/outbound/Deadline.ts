import { Cause, Duration, Effect } from "effect"

/**
 * A call to a peer that must answer within `ms`. The deadline is Effect's own timeout, which
 * interrupts the call and so aborts the signal it is given; it fails with a
 * `Cause.TimeoutException`, and with what the call threw otherwise.
 *
 * Not `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: on Node 20 the composite holds its
 * timeout signal only weakly, and a garbage collection before the deadline leaves the call waiting
 * on a stalled peer for ever (nodejs/node#57736). `test/unit/deadline.test.ts` holds the callers to
 * their deadline under such collections.
 */
export const withinDeadline = <A>(ms: number, call: (signal: AbortSignal) => Promise<A>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({ try: call, catch: (error) => error }).pipe(Effect.timeout(Duration.millis(ms)))

export const isDeadlinePassed = (error: unknown): error is Cause.TimeoutException => Cause.isTimeoutException(error)
