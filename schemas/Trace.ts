import { Schema } from "effect"

/** OTLP JSON (opentelemetry-proto JSON encoding); the span and log record objects are not re-described here. */
export const OtlpTraces = Schema.Struct({ resourceSpans: Schema.Array(Schema.Unknown) })
export const OtlpLogs = Schema.Struct({ resourceLogs: Schema.Array(Schema.Unknown) })

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
  start_time: Schema.optional(Schema.Date),
  end_time: Schema.optional(Schema.Date),
  page_token: Schema.optional(Schema.String),
  page_size: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1), Schema.lessThanOrEqualTo(100)),
    { default: () => 20 }
  )
})

export const WorkflowTrace = Schema.Struct({
  ...RunTrace.fields,
  /** The runs whose worklogs are merged here, newest first. */
  runs: Schema.Array(TraceRunSummary),
  next_page_token: Schema.NullOr(Schema.String)
})
