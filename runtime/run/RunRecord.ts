import { Schema } from "effect"

export const RunStatusSchema = Schema.Literal("pending", "running", "paused", "completed", "failed", "cancelled", "skipped")

/** The run row as the kernel reads it. */
export const RunRecord = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  workflow_id: Schema.String,
  workflow_name: Schema.String,
  version: Schema.Number,
  status: RunStatusSchema,
  trigger_type: Schema.String,
  is_dry_run: Schema.Boolean,
  input_params: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  parent_run_id: Schema.NullOr(Schema.String),
  parent_node_id: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.String),
  held: Schema.Boolean,
  error: Schema.NullOr(Schema.String),
  /** Who started the run (a trigger started by nobody: null). */
  created_by: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  search_overrides: Schema.optionalWith(
    Schema.NullOr(
      Schema.Struct({
        top_k: Schema.optional(Schema.Number),
        min_score: Schema.optional(Schema.Number),
        knowledge_base_ids: Schema.optional(Schema.Array(Schema.String))
      })
    ),
    { default: () => null }
  )
})
export type RunRecord = typeof RunRecord.Type

const StepState = Schema.Struct({
  id: Schema.String,
  node_id: Schema.String,
  status: Schema.Literal("running", "completed", "failed", "skipped", "cancelled"),
  output: Schema.optionalWith(Schema.Unknown, { nullable: true }),
  error: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  attempt: Schema.Number,
  position: Schema.Number
})

const HitlState = Schema.Struct({
  id: Schema.String,
  node_id: Schema.String,
  status: Schema.Literal("pending", "claimed", "completed", "cancelled"),
  response: Schema.optionalWith(Schema.Unknown, { nullable: true })
})

const ChildState = Schema.Struct({
  id: Schema.String,
  node_id: Schema.String,
  status: RunStatusSchema,
  output: Schema.optionalWith(Schema.Unknown, { nullable: true }),
  error: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})

const WaitState = Schema.Struct({
  node_id: Schema.String,
  kind: Schema.Literal("child", "timer", "external"),
  key: Schema.String,
  resolution: Schema.optionalWith(Schema.Unknown, { nullable: true }),
  resolved: Schema.Boolean
})

/** Everything an activation needs, read in one statement: the run and its journal. */
export const Journaled = Schema.Struct({
  run: RunRecord,
  last_seq: Schema.Number,
  wake_seq: Schema.Number,
  steps: Schema.Array(StepState),
  hitl: Schema.Array(HitlState),
  children: Schema.Array(ChildState),
  waits: Schema.Array(WaitState)
})
export type Journaled = typeof Journaled.Type
export type StepState = typeof StepState.Type
export type HitlState = typeof HitlState.Type
export type ChildState = typeof ChildState.Type
export type WaitState = typeof WaitState.Type
