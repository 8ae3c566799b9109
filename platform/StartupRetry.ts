import { Duration, Effect, Either } from "effect"
import { StartupError } from "./StartupError.js"

export interface Attempted {
  /** A short reason, e.g. ECONNREFUSED. */
  readonly reason: string
  /** false: waiting cannot help (wrong password, missing database). */
  readonly retryable: boolean
  /** The line to print when retrying stops here (only for non-retryable failures). */
  readonly fatal?: string
}

/**
 * Tries `attempt` until it succeeds, with a growing pause (0.5 s doubling to 5 s) and a log line
 * per failed attempt, for at most `timeoutSeconds`; then fails with `giveUp(last reason)`.
 */
export const retryStartup = <A, E, R>(options: {
  readonly what: string
  readonly timeoutSeconds: number
  readonly attempt: Effect.Effect<A, E, R>
  readonly classify: (error: E) => Attempted
  readonly giveUp: (reason: string) => string
}) =>
  Effect.gen(function*() {
    const deadline = Date.now() + options.timeoutSeconds * 1000
    let pause = 500
    for (let n = 1;; n++) {
      const result = yield* Effect.either(options.attempt)
      if (Either.isRight(result)) {
        if (n > 1) yield* Effect.log(`${options.what} answered after ${n} attempts`)
        return result.right
      }
      const failure = options.classify(result.left)
      if (!failure.retryable) return yield* new StartupError({ message: failure.fatal ?? options.giveUp(failure.reason) })
      const left = deadline - Date.now()
      if (left <= 0) return yield* new StartupError({ message: options.giveUp(failure.reason) })
      const wait = Math.min(pause, left)
      yield* Effect.logWarning(
        `Waiting for ${options.what} (attempt ${n}: ${failure.reason}); next try in ${Duration.format(Duration.millis(wait))}`
      )
      yield* Effect.sleep(wait)
      pause = Math.min(pause * 2, 5000)
    }
  })

/** The code or message at the bottom of a connection failure. */
export const rootReason = (error: unknown): { readonly code: string | undefined; readonly message: string } => {
  let current: unknown = error
  for (let i = 0; i < 5; i++) {
    const next = (current as { cause?: unknown })?.cause
    if (next === undefined || next === null) break
    current = next
  }
  const code = (current as { code?: unknown })?.code
  const aggregated = (current as { errors?: ReadonlyArray<{ code?: unknown }> })?.errors?.[0]?.code
  const message = current instanceof Error ? current.message : String(current)
  return {
    code: typeof code === "string" ? code : typeof aggregated === "string" ? aggregated : undefined,
    message
  }
}
