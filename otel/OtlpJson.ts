/** OTLP JSON shapes (opentelemetry-proto, JSON encoding) for what the trace endpoints serve. */

export type AnyValue =
  | { readonly stringValue: string }
  | { readonly intValue: number | string }
  | { readonly doubleValue: number }
  | { readonly boolValue: boolean }

export interface KeyValue {
  readonly key: string
  readonly value: AnyValue
}

export interface OtlpLogRecord {
  readonly timeUnixNano: string
  readonly observedTimeUnixNano: string
  readonly severityNumber: number
  readonly severityText: string
  readonly body: AnyValue
  readonly attributes: ReadonlyArray<KeyValue>
  readonly traceId: string
  readonly spanId: string
  readonly flags: number
}

export const anyValue = (value: unknown): AnyValue => {
  if (typeof value === "string") return { stringValue: value }
  if (typeof value === "boolean") return { boolValue: value }
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: value } : { doubleValue: value }
  return { stringValue: JSON.stringify(value) ?? "" }
}

export const keyValues = (record: Readonly<Record<string, unknown>>): Array<KeyValue> =>
  Object.entries(record).flatMap(([key, value]) => (value === undefined || value === null ? [] : [{ key, value: anyValue(value) }]))

export const unixNano = (date: Date) => `${BigInt(date.getTime()) * 1_000_000n}`

export const SEVERITY = {
  INFO: 9,
  WARN: 13,
  ERROR: 17
} as const

export const logRecord = (input: {
  readonly time: Date
  readonly severity: keyof typeof SEVERITY
  readonly body: string
  readonly attributes: Readonly<Record<string, unknown>>
  readonly traceId: string
  readonly spanId: string
}): OtlpLogRecord => ({
  timeUnixNano: unixNano(input.time),
  observedTimeUnixNano: unixNano(input.time),
  severityNumber: SEVERITY[input.severity],
  severityText: input.severity,
  body: { stringValue: input.body },
  attributes: keyValues(input.attributes),
  traceId: input.traceId,
  spanId: input.spanId,
  flags: 1
})
