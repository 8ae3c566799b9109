import { Cause, Effect } from "effect"
import { isTransient } from "../../platform/Transient.js"

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006"
])
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Failed to acquire connection|connection error|Connection timed out|Query read timeout|the database system is (starting up|shutting down)/i

/** Why the database cannot be reached, if that is what this failure is. */
export const databaseUnavailable = (cause: Cause.Cause<unknown>): string | undefined => {
  for (const reason of [...Cause.failures(cause), ...Cause.defects(cause)]) {
    let current: unknown = reason
    let sawSql = false
    for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
      const tag = (current as { _tag?: unknown })._tag
      if (tag === "SqlError") sawSql = true
      const code = (current as { code?: unknown }).code
      const message = current instanceof Error ? current.message : ""
      if (sawSql && typeof code === "string" && CONNECTION_CODES.has(code)) return code
      if (sawSql && CONNECTION_MESSAGES.test(message)) return message
      current = (current as { cause?: unknown }).cause
    }
  }
  return undefined
}

/**
 * Whether this failure is a transaction PostgreSQL rolled back as a deadlock's or a serialization's
 * victim: nothing of it was written, and the same request sent again will most likely pass.
 */
export const lostConflict = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.failures(cause), ...Cause.defects(cause)].some((reason) => {
    let current: unknown = reason
    for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
      if (isTransient(current)) return true
      current = (current as { cause?: unknown }).cause
    }
    return false
  })

const REPORT_EVERY_MS = 60_000

/** Says once (then at most once a minute) that the database is down, instead of once per request. */
export const makeOutageReport = () => {
  let lastReported = 0
  return (reason: string) =>
    Effect.suspend(() => {
      const now = Date.now()
      if (now - lastReported < REPORT_EVERY_MS) return Effect.void
      lastReported = now
      return Effect.logError(`The database is unavailable (${reason}): requests are answered 503 until it is back`)
    })
}
