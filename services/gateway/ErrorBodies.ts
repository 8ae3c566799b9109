import { HttpServerResponse } from "@effect/platform"
import type { ErrorCode } from "../../schemas/ErrorCodes.js"
import { ErrorTags } from "../../schemas/Errors.js"
import { capEcho, capMessage } from "./BodyChecks.js"

export interface FlatError {
  readonly code: ErrorCode
  readonly message: string
  readonly details?: ReadonlyArray<unknown> | undefined
  /** Also sent wrapped, as `error: {code, message, issues}` (01 "Errors" 1). */
  readonly issues?: ReadonlyArray<unknown> | undefined
}

const MAX_DETAILS = 50

/** Strings inside a detail are cut like messages; a detail list keeps its first 50 entries. */
const capDetail = (detail: unknown): unknown =>
  typeof detail === "string"
    ? capEcho(detail)
    : Array.isArray(detail)
    ? detail.slice(0, MAX_DETAILS).map(capDetail)
    : typeof detail === "object" && detail !== null
    ? Object.fromEntries(Object.entries(detail).map(([k, v]) => [k, k === "message" && typeof v === "string" ? capMessage(v) : capDetail(v)]))
    : detail

const capList = (list: ReadonlyArray<unknown> | undefined) => list === undefined ? undefined : list.slice(0, MAX_DETAILS).map(capDetail)

/** The flat error body; whatever it echoes of the request is bounded (a value never comes back whole). */
export const errorResponse = (status: number, requestId: string, error: FlatError, headers: Record<string, string> = {}) => {
  const message = capMessage(error.message)
  const details = capList(error.details)
  const issues = capList(error.issues)
  return HttpServerResponse.unsafeJson(
    {
      code: error.code,
      message,
      request_id: requestId,
      ...(details !== undefined ? { details } : {}),
      ...(issues !== undefined ? { error: { code: error.code, message, issues } } : {})
    },
    { status, headers }
  )
}

const tags: ReadonlyArray<string> = ErrorTags
const decoder = new TextDecoder()

interface DecodeIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * Every error response leaves in the flat shape `{code, message, request_id, details?}`:
 * domain errors lose their `_tag`, decode failures become VALIDATION_ERROR with the issues.
 */
export const flattenErrorBody = (response: HttpServerResponse.HttpServerResponse, requestId: string): HttpServerResponse.HttpServerResponse => {
  if (response.status < 400 || response.body._tag !== "Uint8Array") return response
  const parsed = safeParse(decoder.decode(response.body.body))
  if (parsed === undefined || typeof parsed._tag !== "string") return response
  if (parsed._tag === "HttpApiDecodeError") {
    const all = (parsed.issues as ReadonlyArray<DecodeIssue> | undefined) ?? []
    // An optional field's schema is a union with `undefined`: its "Expected undefined" issue says
    // nothing beside the field's own one.
    const pathOf = (i: DecodeIssue) => i.path.join(".")
    const issues = all.filter((i) =>
      !(i.message.startsWith("Expected undefined, actual") &&
        all.some((o) => o !== i && pathOf(o) === pathOf(i) && !o.message.startsWith("Expected undefined")))
    )
    return errorResponse(400, requestId, {
      code: "VALIDATION_ERROR",
      message: issues.length > 0
        ? issues.slice(0, 10).map((i) => `${i.path.length > 0 ? i.path.join(".") + ": " : ""}${capEcho(i.message, 300)}`).join("; ")
        : String(parsed.message ?? "Invalid request"),
      details: issues.map((i) => ({ path: i.path.map(String), message: i.message }))
    })
  }
  if (!tags.includes(parsed._tag)) return response
  const headers: Record<string, string> = {}
  if (typeof parsed.retry_after_seconds === "number") headers["retry-after"] = String(parsed.retry_after_seconds)
  return errorResponse(response.status, requestId, {
    // Encoded from a domain error, whose schema admits catalogued codes only.
    code: String(parsed.code) as ErrorCode,
    message: String(parsed.message),
    details: parsed.details as ReadonlyArray<unknown> | undefined,
    issues: parsed.issues as ReadonlyArray<unknown> | undefined
  }, headers)
}

const safeParse = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
