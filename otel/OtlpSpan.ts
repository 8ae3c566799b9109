import type { Attributes, HrTime, Link } from "@opentelemetry/api"
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base"

/** One span in OTLP JSON (`resourceSpans[].scopeSpans[].spans[]`). */
export type OtlpSpan = Record<string, unknown> & { readonly traceId: string; readonly spanId: string; readonly startTimeUnixNano: string }

const HAS_IS_REMOTE = 0x100
const IS_REMOTE = 0x200

const nanos = (time: HrTime) => `${BigInt(Math.trunc(time[0])) * 1_000_000_000n + BigInt(Math.trunc(time[1]))}`

/** A plain value as OTLP JSON's typed value (`AnyValue`). */
export const anyValue = (value: unknown): Record<string, unknown> => {
  switch (typeof value) {
    case "string":
      return { stringValue: value }
    case "number":
      return Number.isInteger(value) ? { intValue: value } : { doubleValue: value }
    case "boolean":
      return { boolValue: value }
  }
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } }
  if (value !== null && typeof value === "object") {
    return { kvlistValue: { values: Object.entries(value).map(([key, v]) => ({ key, value: anyValue(v) })) } }
  }
  return {}
}

const attributes = (record: Attributes) => Object.keys(record).map((key) => ({ key, value: anyValue(record[key]) }))

const flags = (traceFlags: number, isRemote: boolean | undefined) => (traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote === true ? IS_REMOTE : 0)

const event = (e: TimedEvent) => ({
  attributes: e.attributes !== undefined ? attributes(e.attributes) : [],
  name: e.name,
  timeUnixNano: nanos(e.time),
  droppedAttributesCount: e.droppedAttributesCount ?? 0
})

const link = (l: Link) => ({
  attributes: l.attributes !== undefined ? attributes(l.attributes) : [],
  spanId: l.context.spanId,
  traceId: l.context.traceId,
  droppedAttributesCount: l.droppedAttributesCount ?? 0,
  flags: flags(l.context.traceFlags, l.context.isRemote)
})

/**
 * A span in the OTLP JSON encoding, field for field what the OTLP/HTTP JSON exporter sends
 * (`test/unit/otlp-span.test.ts` holds it to the exporter's own serializer), without its
 * serialize-and-parse round trip.
 */
export const otlpSpan = (span: ReadableSpan): OtlpSpan => {
  const context = span.spanContext()
  const parent = span.parentSpanContext
  const status: Record<string, unknown> = { code: span.status.code }
  if (span.status.message !== undefined) status.message = span.status.message
  const traceState = context.traceState?.serialize()
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    ...(parent?.spanId ? { parentSpanId: parent.spanId } : {}),
    ...(traceState !== undefined ? { traceState } : {}),
    name: span.name,
    kind: span.kind + 1,
    startTimeUnixNano: nanos(span.startTime),
    endTimeUnixNano: nanos(span.endTime),
    attributes: attributes(span.attributes),
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events.map(event),
    droppedEventsCount: span.droppedEventsCount,
    status,
    links: span.links.map(link),
    droppedLinksCount: span.droppedLinksCount,
    flags: flags(context.traceFlags, parent?.isRemote)
  }
}

/** A span's OTLP JSON form and its instrumentation scope. */
export const toOtlp = (span: ReadableSpan): { readonly scope: string; readonly span: OtlpSpan } => ({
  scope: span.instrumentationScope.name,
  span: otlpSpan(span)
})
