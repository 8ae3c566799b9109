import { Schema } from "effect"
import { NudgeId, WorkflowId } from "./Ids.js"

export const NudgeStatus = Schema.Literal("open", "responded", "closed", "expired")

export const Nudge = Schema.Struct({
  id: NudgeId,
  run_id: Schema.String,
  workflow_id: WorkflowId,
  node_id: Schema.String,
  card_ref: Schema.String,
  /** park: the run waits for the answer; collect: the answer starts trigger_workflow_id; notify: shown only. */
  mode: Schema.Literal("park", "collect", "notify"),
  title: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String),
  actions: Schema.Array(Schema.Struct({ label: Schema.String, value: Schema.String })),
  status: NudgeStatus,
  response: Schema.optional(Schema.Unknown),
  responded_at: Schema.optional(Schema.Date),
  expires_at: Schema.NullOr(Schema.Date),
  /** With a reminders cadence: how many reminders are due so far and when the next one is. */
  reminders: Schema.optional(
    Schema.Struct({ every_seconds: Schema.Number, max: Schema.NullOr(Schema.Number), sent: Schema.Number, next_at: Schema.NullOr(Schema.Date) })
  ),
  triggered_run_id: Schema.optional(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type Nudge = typeof Nudge.Type

export const NudgeList = Schema.Struct({ items: Schema.Array(Nudge) })

export const NudgeRespondRequest = Schema.Struct({
  /** One of the card's action values when it offers actions; any JSON value otherwise. */
  value: Schema.Unknown
})
