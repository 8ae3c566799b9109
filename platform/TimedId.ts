import { createHash, randomBytes } from "node:crypto"
import { derivedUuid } from "./DerivedId.js"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

/** `at` (milliseconds) as the 12 hex digits of a version-7 UUID's first 48 bits. */
const timeHex = (at: number) => Math.max(0, Math.floor(at)).toString(16).padStart(12, "0").slice(-12)

/** A version-7 UUID of `at` (milliseconds) whose other 74 bits come from `rest` (at least 10 bytes). */
const timed = (at: number, rest: Uint8Array) => {
  const time = timeHex(at)
  const r = hex(rest)
  const variant = (8 + (rest[3] & 0x3)).toString(16)
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${r.slice(0, 3)}-${variant}${r.slice(4, 7)}-${r.slice(8, 20)}`
}

/**
 * A version-7 UUID (RFC 9562): its first 48 bits are the time in milliseconds, so ids made later
 * sort later. Run ids are made this way: the run tables are partitioned by id ranges of a day.
 */
export const uuidV7 = (at: number = Date.now()) => timed(at, randomBytes(10))

/** A version-7 UUID of `at` whose other bits are fixed by `key`: a derived id that still sorts by its time. */
export const derivedUuidV7 = (at: number, key: string) => timed(at, createHash("sha256").update(key).digest().subarray(0, 10))

/** The time (milliseconds) a version-7 UUID carries; undefined for any other UUID. */
export const uuidV7Time = (id: string): number | undefined => (id.charAt(14) === "7" ? parseInt(id.slice(0, 8) + id.slice(9, 13), 16) : undefined)

/**
 * An id derived from `key` that shares `parent`'s time (and so its day's partition) when `parent`
 * is a version-7 UUID; of an older parent, a plain derived id (`platform/DerivedId.ts`'s hash).
 */
export const derivedUuidOf = (parent: string, key: string) => {
  const at = uuidV7Time(parent)
  return at === undefined ? derivedUuid(key) : derivedUuidV7(at, key)
}

/** The smallest UUID of the millisecond `at`: a bound of the id range of a time span. */
export const uuidV7Floor = (at: number) => {
  const time = timeHex(at)
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-0000-0000-000000000000`
}
