import { Schema } from "effect"

/** Headers of the POST endpoints that start work (00-decisions section 7): `.setHeaders(IdempotencyHeaders)`. */
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)))
})
