import { Cause, Data, Option } from "effect"

/**
 * A reason the platform cannot start, said in one line that names the cause and the fix. The
 * entry point prints it and exits non-zero; nothing else is printed for it.
 */
export class StartupError extends Data.TaggedError("StartupError")<{ readonly message: string }> {}

const isStartupError = (u: unknown): u is StartupError => typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "StartupError"

/** The one line to print for a failed start: the StartupError when there is one, else the first cause's message. */
export const startupFailureLine = (cause: Cause.Cause<unknown>): string => {
  const reasons = [...Cause.failures(cause), ...Cause.defects(cause)]
  const known = reasons.find(isStartupError)
  if (known !== undefined) return known.message
  const first = Option.getOrUndefined(Option.fromNullable(reasons[0]))
  const text = first instanceof Error ? first.message : typeof first === "string" ? first : Cause.pretty(cause).split("\n")[0]
  return `The platform could not start: ${String(text).split("\n")[0]}`
}
