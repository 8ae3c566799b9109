import { Schema } from "effect"
import { WorkflowId } from "./Ids.js"

export const OverlapPolicy = Schema.Literal("skip", "allow").annotations({
  description: "skip (default): a fire while the previous scheduled run has not ended records a `skipped` run with skip_reason; allow: it starts anyway"
})

/** PUT /workflows/{id}/schedule. */
export const ScheduleRequest = Schema.Struct({
  cron: Schema.String.pipe(Schema.maxLength(200)).annotations({ description: "5 fields, or 6 with seconds first (`*/10 * * * * *`)" }),
  timezone: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(100)), { default: () => "UTC" }).annotations({
    description: "an IANA time zone; default UTC"
  }),
  input_params: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }),
  overlap_policy: Schema.optionalWith(OverlapPolicy, { default: () => "skip" as const })
})

export const Schedule = Schema.Struct({
  workflow_id: WorkflowId,
  cron: Schema.String,
  timezone: Schema.String,
  input_params: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  overlap_policy: OverlapPolicy,
  enabled: Schema.Boolean,
  /** Created by a schedule node of the AI Employee rather than through this API. */
  managed: Schema.Boolean,
  next_fire_at: Schema.NullOr(Schema.Date),
  last_fire_at: Schema.NullOr(Schema.Date),
  /** Why the last fire started no run (no published version, input not matching the schema). */
  last_error: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type Schedule = typeof Schedule.Type

/** POST /schedule-preview: when a cron expression would fire, before it is saved. */
export const SchedulePreviewRequest = Schema.Struct({
  cron: ScheduleRequest.fields.cron,
  timezone: ScheduleRequest.fields.timezone,
  count: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 20)), { default: () => 5 })
})

export const SchedulePreview = Schema.Struct({
  cron: Schema.String,
  timezone: Schema.String,
  /** The next fire times from now, in UTC (the time zone only decides which instants those are). */
  next_fire_times: Schema.Array(Schema.Date)
})
