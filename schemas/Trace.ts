import { Schema } from "effect"
import { DateTimeParam, pageSizeParam } from "./Pagination.js"

/** OTLP JSON (opentelemetry-proto JSON encoding); the span and log record objects are not re-described here. */
export const OtlpTraces = Schema.Struct({ resourceSpans: Schema.Array(Schema.Unknown) })
export const OtlpLogs = Schema.Struct({ resourceLogs: Schema.Array(Schema.Unknown) })

/** An OTLP attribute value as the trace endpoints write it (one of these keys). */
export const OtlpAnyValue = Schema.Struct({
  stringValue: Schema.optional(Schema.String),
  intValue: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  doubleValue: Schema.optional(Schema.Number),
  boolValue: Schema.optional(Schema.Boolean)
})
export const OtlpAttribute = Schema.Struct({ key: Schema.String, value: OtlpAnyValue })

/**
 * A span of `traces.resourceSpans[].scopeSpans[].spans[]`, for clients that read the trace (the
 * console's waterfall decodes with it); other OTLP fields may be present.
 */
export const OtlpSpan = Schema.Struct({
  traceId: Schema.String,
  spanId: Schema.String,
  parentSpanId: Schema.optional(Schema.String),
  name: Schema.String,
  startTimeUnixNano: Schema.String,
  endTimeUnixNano: Schema.String,
  attributes: Schema.optionalWith(Schema.Array(OtlpAttribute), { default: () => [] }),
  events: Schema.optionalWith(
    Schema.Array(
      Schema.Struct({ name: Schema.String, timeUnixNano: Schema.String, attributes: Schema.optionalWith(Schema.Array(OtlpAttribute), { default: () => [] }) })
    ),
    { default: () => [] }
  ),
  status: Schema.optional(Schema.Struct({ code: Schema.optional(Schema.Number), message: Schema.optional(Schema.String) }))
})
export type OtlpSpan = typeof OtlpSpan.Type

export const OtlpResourceSpans = Schema.Struct({
  scopeSpans: Schema.Array(Schema.Struct({ spans: Schema.Array(OtlpSpan) }))
})

export const RunTrace = Schema.Struct({
  traces: OtlpTraces,
  logs: OtlpLogs,
  /** Attribute values were shortened (or log records dropped) to stay under the size cap. */
  truncated: Schema.Boolean
})

export const TraceRunSummary = Schema.Struct({
  run_id: Schema.UUID,
  trace_id: Schema.String,
  version: Schema.Int,
  status: Schema.String,
  trigger_type: Schema.String,
  created_at: Schema.Date
})

export const WorkflowTraceParams = Schema.Struct({
  start_time: Schema.optional(DateTimeParam),
  end_time: Schema.optional(DateTimeParam),
  page_token: Schema.optional(Schema.String),
  page_size: pageSizeParam(20)
})

export const WorkflowTrace = Schema.Struct({
  ...RunTrace.fields,
  /** The runs whose worklogs are merged here, newest first. */
  runs: Schema.Array(TraceRunSummary),
  next_page_token: Schema.NullOr(Schema.String)
})
