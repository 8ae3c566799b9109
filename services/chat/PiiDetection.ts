/** What `user_context` may hold that identifies a person, found without a model. */
export type PiiKind = "EMAIL" | "PHONE" | "NAME"

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g
// A phone number: optional +, then 8 to 15 digits with spaces, dots, dashes or brackets between.
// Not inside a longer token: ids like UUIDs hold digit runs joined by dashes too.
const PHONE = /(?<![\w@.-])\+?\(?\d(?:[\s().-]*\d){7,14}(?![\w@]|[-.]\w)/g

const DATE = /^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$/

const NAME_KEY = /(^|_)(name|first_?name|last_?name|full_?name|given_?name|family_?name|display_?name|surname|middle_?name)$/i
const PHONE_KEY = /(^|_)(phone|phone_?number|mobile|cell|telephone|tel|msisdn)$/i
const EMAIL_KEY = /(^|_)e?mail(_?address)?$/i

/** A key whose whole value is personal whatever it looks like. */
export const kindOfKey = (key: string): PiiKind | undefined =>
  NAME_KEY.test(key) ? "NAME" : PHONE_KEY.test(key) ? "PHONE" : EMAIL_KEY.test(key) ? "EMAIL" : undefined

export interface PiiMatch {
  readonly kind: PiiKind
  readonly start: number
  readonly end: number
}

/** Emails and phone numbers inside free text, in order and not overlapping. */
export const findPii = (text: string): ReadonlyArray<PiiMatch> => {
  const found: Array<PiiMatch> = []
  for (const m of text.matchAll(EMAIL)) found.push({ kind: "EMAIL", start: m.index, end: m.index + m[0].length })
  for (const m of text.matchAll(PHONE)) {
    const start = m.index
    const end = start + m[0].length
    if (DATE.test(m[0])) continue
    if (!found.some((f) => start < f.end && end > f.start)) found.push({ kind: "PHONE", start, end })
  }
  return found.sort((a, b) => a.start - b.start)
}

export const TOKEN = /\[PII_(EMAIL|PHONE|NAME)_[0-9a-f]{10}\]/g
const IS_TOKEN = /^\[PII_(EMAIL|PHONE|NAME)_[0-9a-f]{10}\]$/

/**
 * Replaces what is personal in a JSON value by what `token` gives: whole values under personal
 * keys (name, phone, email...), and emails and phone numbers inside any other string.
 */
export const replacePii = (
  value: unknown,
  token: (kind: PiiKind, original: string) => string,
  key = ""
): unknown => {
  const whole = kindOfKey(key)
  if (typeof value === "string") {
    if (IS_TOKEN.test(value)) return value
    if (whole !== undefined && value.trim() !== "") return token(whole, value)
    let out = ""
    let at = 0
    for (const m of findPii(value)) {
      out += value.slice(at, m.start) + token(m.kind, value.slice(m.start, m.end))
      at = m.end
    }
    return out + value.slice(at)
  }
  if (typeof value === "number" && whole === "PHONE") return token("PHONE", String(value))
  if (Array.isArray(value)) return value.map((v) => replacePii(v, token, key))
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replacePii(v, token, k)]))
  }
  return value
}
