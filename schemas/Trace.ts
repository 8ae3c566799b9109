import { Schema } from "effect"
import { DateTimeParam, pageSizeParam } from "./Pagination.js"

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
