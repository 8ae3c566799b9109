import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { ErrorCode } from "./ErrorCodes.js"

/**
 * Domain errors. On the wire every error is the flat body
 * `{code, message, request_id, details?}`: the gateway drops `_tag` and adds `request_id`.
 */
const fields = {
  code: ErrorCode,
  message: Schema.String,
  details: Schema.optional(Schema.Array(Schema.Unknown))
}

export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  fields,
  HttpApiSchema.annotations({ status: 400 })
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  fields,
  HttpApiSchema.annotations({ status: 401 })
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  fields,
  HttpApiSchema.annotations({ status: 403 })
) {}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  fields,
  HttpApiSchema.annotations({ status: 404 })
) {}

export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  fields,
  HttpApiSchema.annotations({ status: 409 })
) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  fields,
  HttpApiSchema.annotations({ status: 413 })
) {}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  fields,
  HttpApiSchema.annotations({ status: 415 })
) {}

/** `issues`, when present, is also sent in the wrapped form `error: {code, message, issues}`. */
export class Unprocessable extends Schema.TaggedError<Unprocessable>()(
  "Unprocessable",
  { ...fields, issues: Schema.optional(Schema.Array(Schema.Unknown)) },
  HttpApiSchema.annotations({ status: 422 })
) {}

export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()(
  "TooManyRequests",
  { ...fields, retry_after_seconds: Schema.Int },
  HttpApiSchema.annotations({ status: 429 })
) {}

export class NotImplemented extends Schema.TaggedError<NotImplemented>()(
  "NotImplemented",
  fields,
  HttpApiSchema.annotations({ status: 501 })
) {}

/** A system the request depends on refuses it for good (a deleted or misconfigured connection): retrying will not help. */
export class FailedDependency extends Schema.TaggedError<FailedDependency>()(
  "FailedDependency",
  fields,
  HttpApiSchema.annotations({ status: 424 })
) {}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  { ...fields, retry_after_seconds: Schema.optional(Schema.Int) },
  HttpApiSchema.annotations({ status: 503 })
) {}

export const ErrorTags = [
  "BadRequest",
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "Conflict",
  "PayloadTooLarge",
  "UnsupportedMediaType",
  "Unprocessable",
  "TooManyRequests",
  "NotImplemented",
  "FailedDependency",
  "ServiceUnavailable"
] as const

export const notFound = (what: string) => new NotFound({ code: "NOT_FOUND", message: `${what} not found` })
export const forbidden = (message = "Your role does not allow this operation") => new Forbidden({ code: "FORBIDDEN", message })
export const unauthorized = (message = "Missing or invalid credential", code: ErrorCode = "UNAUTHORIZED") => new Unauthorized({ code, message })
export const conflict = (code: ErrorCode, message: string) => new Conflict({ code, message })
export const badRequest = (code: ErrorCode, message: string, details?: ReadonlyArray<unknown>) =>
  new BadRequest(details === undefined ? { code, message } : { code, message, details })
export const unprocessable = (code: ErrorCode, message: string, details?: ReadonlyArray<unknown>) =>
  new Unprocessable(details === undefined ? { code, message } : { code, message, details })
