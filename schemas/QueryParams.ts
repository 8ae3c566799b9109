import { Schema } from "effect"

/** PostgreSQL's `integer`: a larger page, version or offset is refused (400), never sent to a query. */
const INT_MAX = 2_147_483_647

/**
 * Numbers and booleans of query strings and paths: decoded from their text, and described to
 * OpenAPI as what they are (`integer`, `boolean`), not as the string they arrive in.
 */
export const IntFromString = (minimum: number) =>
  Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(minimum), Schema.lessThanOrEqualTo(INT_MAX)).annotations({
    jsonSchema: { type: "integer", minimum, maximum: INT_MAX }
  })

export const BooleanFromString = Schema.BooleanFromString.annotations({ jsonSchema: { type: "boolean" } })
