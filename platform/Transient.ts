import { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"

/** A deadlock or serialization failure: PostgreSQL rolled the transaction back, and it may simply run again. */
export const isTransient = (error: unknown) => {
  if (!(error instanceof SqlError)) return false
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  return code === "40P01" || code === "40001"
}

/**
 * Runs `effect` (a whole transaction, or one statement outside any) again when PostgreSQL gave it
 * up as a deadlock's or a serialization's victim, up to three times. Only for effects that write
 * nothing outside the database: the rolled-back attempt left nothing behind.
 */
export const retryTransient = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.retry(effect, { times: 3, while: isTransient })
