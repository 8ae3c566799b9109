import { Schema } from "effect"
import { IntFromString } from "./QueryParams.js"

export const MAX_PAGE_SIZE = 100
export const DEFAULT_PAGE_SIZE = 20

// No upper bound: a larger size is clamped (below), never refused.
const PositiveIntFromString = Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1))

/** A page size above the cap is clamped to 100, not refused. */
const PageSize = Schema.transform(PositiveIntFromString, Schema.Int, {
  strict: true,
  decode: (n) => Math.min(n, MAX_PAGE_SIZE),
  encode: (n) => n
}).annotations({ jsonSchema: { type: "integer", minimum: 1, description: `at most ${MAX_PAGE_SIZE} used (a larger size is clamped)` } })

/** An optional page size with no default (the list picks one), clamped to MAX_PAGE_SIZE. */
export const optionalPageSize = Schema.optional(PageSize)

/** An optional page size (or limit) with this default, clamped to MAX_PAGE_SIZE like every list's. */
export const pageSizeParam = (fallback: number) => Schema.optionalWith(PageSize, { default: () => fallback })

export const PageParams = Schema.Struct({
  page: Schema.optionalWith(IntFromString(1), { default: () => 1 }),
  page_size: pageSizeParam(DEFAULT_PAGE_SIZE)
})
export type PageParams = typeof PageParams.Type

export const Page = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    items: Schema.Array(item),
    total: Schema.Int,
    page: Schema.Int,
    page_size: Schema.Int,
    has_more: Schema.Boolean
  })

export interface PageOf<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
  readonly page: number
  readonly page_size: number
  readonly has_more: boolean
}

export const pageOf = <A>(params: PageParams, items: ReadonlyArray<A>, total: number): PageOf<A> => ({
  items,
  total,
  page: params.page,
  page_size: params.page_size,
  has_more: (params.page - 1) * params.page_size + items.length < total
})

export const pageOffset = (params: PageParams) => (params.page - 1) * params.page_size

const NonNegativeIntFromString = IntFromString(0)

/** The limit/offset form used by a few lists. */
export const LimitOffsetParams = Schema.Struct({
  limit: pageSizeParam(DEFAULT_PAGE_SIZE),
  offset: Schema.optionalWith(NonNegativeIntFromString, { default: () => 0 })
})
export type LimitOffsetParams = typeof LimitOffsetParams.Type

export const LimitOffsetPage = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    items: Schema.Array(item),
    total: Schema.Int,
    limit: Schema.Int,
    offset: Schema.Int,
    has_more: Schema.Boolean
  })

/** A query parameter that is an RFC 3339 date-time (`2026-01-31T12:00:00Z`, offset or Z), as a Date. */
export const DateTimeParam = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/, {
    message: () => "an RFC 3339 date-time such as 2026-01-31T12:00:00Z"
  }),
  Schema.compose(Schema.Date)
).annotations({ description: "RFC 3339 date-time, e.g. 2026-01-31T12:00:00Z" })
