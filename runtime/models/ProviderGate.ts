import { Duration, Effect } from "effect"

/** The longest a provider's Retry-After is taken at its word (a longer one is cut to this). */
const MAX_PAUSE_MS = 60_000

/**
 * A provider's 429 slows every call to that provider on this process rather than failing the
 * step that met it: the provider's gate closes for its Retry-After (or the backoff when it gives
 * none), calls wait for the gate before they are sent, and the call that met the 429 is sent
 * again when the gate opens. Keyed by the provider's base URL.
 */
export const makeProviderGates = () => {
  const openAt = new Map<string, number>()
  return {
    /** Waits until the provider's gate is open. */
    wait: (provider: string) =>
      Effect.suspend(() => {
        const at = openAt.get(provider)
        if (at === undefined) return Effect.void
        const ms = at - Date.now()
        if (ms <= 0) {
          openAt.delete(provider)
          return Effect.void
        }
        return Effect.sleep(Duration.millis(ms))
      }),
    /** Closes the provider's gate for `ms` (never shortening a longer pause already set); the pause taken. */
    pause: (provider: string, ms: number) =>
      Effect.sync(() => {
        const pauseMs = Math.min(Math.max(ms, 0), MAX_PAUSE_MS)
        const until = Math.max(openAt.get(provider) ?? 0, Date.now() + pauseMs)
        openAt.set(provider, until)
        return until - Date.now()
      })
  }
}

/** A Retry-After header (seconds, or an HTTP date) in milliseconds; undefined when absent or unreadable. */
export const retryAfterMs = (header: string | ReadonlyArray<string> | undefined, now = Date.now()): number | undefined => {
  const value = Array.isArray(header) ? header[0] : header
  if (typeof value !== "string" || value.trim() === "") return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
