import { Schema } from "effect"
import { WorkflowId } from "./Ids.js"
import { RunStatus, StepStatus } from "./RunLifecycle.js"

/** What a public app's page shows a visitor before a run: the AI Employee's face and the form its start node asks for. */
export const PublicAppInfo = Schema.Struct({
  workflow_id: WorkflowId,
  name: Schema.String,
  description: Schema.optional(Schema.String),
  icon: Schema.optional(Schema.String),
  /** False while no version is published: runs answer 409 NOT_PUBLISHED. */
  published: Schema.Boolean,
  /** The active version's start node input schema (JSON Schema), null when it takes no input. */
  input_schema: Schema.Unknown,
  /** Runs each client address may start a minute (PUBLIC_APP_RUNS_PER_MINUTE). */
  runs_per_minute: Schema.Number
})

/**
 * A run started from the public app, as its visitor may see it: progress by step and the result,
 * nothing of the steps' inputs and outputs, and a failure told without the platform's own error text.
 */
export const PublicRun = Schema.Struct({
  id: Schema.UUID,
  status: RunStatus,
  created_at: Schema.Date,
  finished_at: Schema.optional(Schema.Date),
  steps: Schema.Array(Schema.Struct({ node_id: Schema.String, node_name: Schema.optional(Schema.String), status: StepStatus })),
  output: Schema.Unknown,
  named_outputs: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type PublicRun = typeof PublicRun.Type
