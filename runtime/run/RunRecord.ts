import { Schema } from "effect"
import { RunStatus } from "../../schemas/RunLifecycle.js"
import { RUN_HEADER, RunRow } from "../../schemas/RunRow.js"

/**
 * The run row as the kernel reads it (its journal's load hands it over as JSON): the columns it
 * uses of the one run-row schema (schemas/RunRow.ts).
 */
export const RunRecord = Schema.Struct({
  ...RunRow.pick(
    ...RUN_HEADER,
    "tenant_id",
    "input_params",
    "parent_run_id",
    "parent_node_id",
    "session_id",
    "held",
    "error"
  ).fields,
  /** Who started the run (a trigger started by nobody: null). */
  created_by: Schema.optionalWith(RunRow.fields.created_by, { default: () => null }),
  search_overrides: Schema.optionalWith(RunRow.fields.search_overrides, { default: () => null })
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
  status: RunStatus,
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
  /** Keys of the events written once per run that the journal holds. */
  keys: Schema.Array(Schema.String),
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
