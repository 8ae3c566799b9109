import { Schema } from "effect"

/** A failed call to a model provider; `retryable` for transport errors, 429 and 5xx. */
export class ModelError extends Schema.TaggedError<ModelError>()("ModelError", {
  message: Schema.String,
  status: Schema.optional(Schema.Number),
  /** A machine-readable reason, e.g. OUTBOUND_ADDRESS_REFUSED. */
  code: Schema.optional(Schema.String),
  retryable: Schema.Boolean,
  /** The provider's Retry-After on a 429 or 503, in milliseconds. */
  retryAfterMs: Schema.optional(Schema.Number)
}) {}
