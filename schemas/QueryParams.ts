import { Schema } from "effect"

/**
 * Numbers and booleans of query strings and paths: decoded from their text, and described to
 * OpenAPI as what they are (`integer`, `boolean`), not as the string they arrive in.
 */
export const IntFromString = (minimum: number) =>
  Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(minimum)).annotations({ jsonSchema: { type: "integer", minimum } })

export const BooleanFromString = Schema.BooleanFromString.annotations({ jsonSchema: { type: "boolean" } })
