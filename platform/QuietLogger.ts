import { Logger, LogLevel } from "effect"

const QUIET_FOR_MS = 60_000

/**
 * Wraps a logger so that a warning or error repeated word for word (a background loop failing
 * every 100 ms while the database is down) is written once a minute instead of every time.
 */
export const quietRepeats = <O>(inner: Logger.Logger<unknown, O>) => {
  const lastSeen = new Map<string, number>()
  return Logger.make<unknown, O | undefined>((options) => {
    if (LogLevel.lessThan(options.logLevel, LogLevel.Warning)) return inner.log(options)
    const key = `${options.logLevel.label}:${typeof options.message === "string" ? options.message : JSON.stringify(options.message)}`
    const now = Date.now()
    const last = lastSeen.get(key)
    if (last !== undefined && now - last < QUIET_FOR_MS) return undefined
    lastSeen.set(key, now)
    if (lastSeen.size > 1000) lastSeen.clear()
    return inner.log(options)
  })
}
