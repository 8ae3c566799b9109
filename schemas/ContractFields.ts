import { Schema } from "effect"

/** A column's schema as the contract shows it: a timestamp crosses the wire as an ISO 8601 string. */
type WireValue<S> = S extends typeof Schema.DateFromSelf ? typeof Schema.Date : S
/** A nullable column is an optional field of the contract, absent when the column is null. */
type WireField<S> = S extends Schema.NullOr<infer T> ? Schema.optional<WireValue<T>> : WireValue<S>

export type ContractFields<Fields, Keys extends keyof Fields> = { readonly [K in Keys]: WireField<Fields[K]> }

const isNullOr = (schema: unknown): schema is Schema.NullOr<Schema.Schema.Any> =>
  Schema.isSchema(schema) && "members" in schema && Array.isArray(schema.members) && schema.members.length === 2 &&
  schema.members[1] === Schema.Null

const wireValue = (schema: unknown): unknown => (schema === Schema.DateFromSelf ? Schema.Date : schema)

/**
 * The contract's fields for some columns of a row schema, derived from it rather than written
 * again: the row (as the pg driver reads it) stays the one description of a table, and a
 * column's type changes in one place. Pair it with `presentOnly`, which turns a row's nulls into
 * the absent fields this makes optional.
 */
export const contractFields = <Fields extends Schema.Struct.Fields, const Keys extends ReadonlyArray<keyof Fields & string>>(
  fields: Fields,
  keys: Keys
): ContractFields<Fields, Keys[number]> => {
  const out: Record<string, unknown> = {}
  for (const key of keys) {
    const column = fields[key]
    out[key] = isNullOr(column) ? Schema.optional(wireValue(column.members[0]) as Schema.Schema.Any) : wireValue(column)
  }
  // The mapping above is the runtime side of ContractFields, key for key.
  return out as ContractFields<Fields, Keys[number]>
}

type PresentOnly<Row, Keys extends keyof Row> =
  & { readonly [K in Keys as null extends Row[K] ? never : K]: Row[K] }
  & { readonly [K in Keys as null extends Row[K] ? K : never]?: Exclude<Row[K], null> }

/** A row's columns as the contract's value: the columns named, a null one left out. */
export const presentOnly = <Row extends object, const Keys extends ReadonlyArray<keyof Row & string>>(row: Row, keys: Keys): PresentOnly<Row, Keys[number]> => {
  const out: Record<string, unknown> = {}
  for (const key of keys) {
    if (row[key] !== null) out[key] = row[key]
  }
  // Each key copied unless null: the two halves of PresentOnly.
  return out as PresentOnly<Row, Keys[number]>
}
