import { Effect } from "effect"

/**
 * Repeats `round` for as long as the enclosing scope lives (a worker loop: claim, work, idle). A
 * round that fails is logged with `what` and the loop waits a second before the next one, so a
 * database outage slows it down instead of stopping it.
 */
export const keepRunning = <E, R>(what: string, round: Effect.Effect<void, E, R>) =>
  Effect.forkScoped(Effect.forever(round.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning(`${what} failed; retrying`, cause).pipe(Effect.zipRight(Effect.sleep("1 second"))))
  )))
