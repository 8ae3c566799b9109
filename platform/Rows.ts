import { Effect, ParseResult, Schema } from "effect"

/**
 * Rows are decoded at the repository boundary: a column whose type changes (a migration, a
 * hand edit) fails loudly where it is read, naming the table, instead of reaching a client as
 * a malformed field. A row that does not match is a defect (the schema and the table disagree).
 */
export const decodeRows = <A, I>(table: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return <E, R>(self: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<ReadonlyArray<A>, E, R> =>
    Effect.flatMap(self, (rows) =>
      decode(rows).pipe(
        Effect.catchAll((error) => Effect.dieMessage(`rows of ${table} do not match their schema: ${ParseResult.TreeFormatter.formatErrorSync(error)}`))
      ))
}

/** `timestamptz` columns: pg hands them over as Date. */
export const Timestamp = Schema.DateFromSelf
/** `jsonb` objects. */
export const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
/** `bigint` columns: pg hands them over as strings. */
export const BigIntText = Schema.String

/**
 * A `jsonb` array this service wrote itself, of elements it built: checked to be an array; the
 * elements' shape is the writer's.
 */
export const JsonArrayOf = <T>() => Schema.Array(Schema.Unknown) as unknown as Schema.Schema<ReadonlyArray<T>, ReadonlyArray<unknown>>

/** A `jsonb` object this service wrote itself: checked to be an object; its shape is the writer's. */
export const JsonObjectOf = <T>() => JsonObject as unknown as Schema.Schema<T, { readonly [x: string]: unknown }>
