import { Schema } from "effect"
import { WorkflowId } from "./Ids.js"
import { FailureKind, RunStatus, StepStatus } from "./RunLifecycle.js"

export const TriggerType = Schema.Literal("ui", "api", "schedule", "webhook", "feedback", "document", "app_public", "email", "eval").annotations({
  description: "eval: a row of an evaluation run (the platform's addition to the documented values; filter it out with trigger_type)"
})
export type TriggerType = typeof TriggerType.Type

/** A run's own search settings (an evaluation's search_config). */
export const SearchOverrides = Schema.Struct({
  top_k: Schema.optional(Schema.Number),
  min_score: Schema.optional(Schema.Number),
  knowledge_base_ids: Schema.optional(Schema.Array(Schema.String))
})

/**
 * The runs table's row (runtime/run/migrations/RunTables.ts) as the pg driver reads it: the one
 * description of a run row. Each reader picks the columns it selects: the kernel's RunRecord,
 * the run API's rows and the trace store's; the contract's `Run` (schemas/Run.ts) is derived
 * from it (`contractFields`).
 */
export const RunRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  workflow_id: WorkflowId,
  workflow_name: Schema.String,
  version: Schema.Int,
  status: RunStatus,
  trigger_type: TriggerType,
  is_dry_run: Schema.Boolean,
  input_params: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  output: Schema.Unknown,
  named_outputs: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  error: Schema.NullOr(Schema.String),
  parent_run_id: Schema.NullOr(Schema.UUID),
  parent_node_id: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.UUID),
  held: Schema.Boolean,
  created_by: Schema.NullOr(Schema.String),
  search_overrides: Schema.NullOr(SearchOverrides),
  created_at: Schema.DateFromSelf,
  started_at: Schema.NullOr(Schema.DateFromSelf),
  finished_at: Schema.NullOr(Schema.DateFromSelf),
  scheduled_fire_time: Schema.NullOr(Schema.DateFromSelf),
  skip_reason: Schema.NullOr(Schema.String),
  retention_hold: Schema.Boolean.annotations({
    description: "Kept past its tenant's retention period until released (PUT/DELETE /runs/{run_id}/retention-hold)"
  })
})
export type RunRow = typeof RunRow.Type

/** What names a run wherever it is shown: its id, its AI Employee and version, status, trigger. */
export const RUN_HEADER = ["id", "workflow_id", "workflow_name", "version", "status", "trigger_type", "is_dry_run"] as const

export const ModelUsage = Schema.Struct({
  prompt_tokens: Schema.Int,
  completion_tokens: Schema.Int,
  total_tokens: Schema.Int
})

/** The run_steps table's row as the run API reads it; the contract's `Step` is derived from it. */
export const StepRow = Schema.Struct({
  id: Schema.UUID,
  node_id: Schema.String,
  node_type: Schema.String,
  node_name: Schema.NullOr(Schema.String),
  status: StepStatus,
  attempt: Schema.Int,
  output: Schema.NullOr(Schema.Unknown),
  error: Schema.NullOr(Schema.String),
  error_kind: Schema.NullOr(FailureKind.annotations({
    description: "A failed step's failure kind: configuration or unavailable (running it again cannot help), dependency or model (it can)"
  })),
  error_code: Schema.NullOr(Schema.String.annotations({ description: "A failed step's reason code, as its node type names it (e.g. TOO_LONG)" })),
  token_usage: Schema.Record({ key: Schema.String, value: ModelUsage }),
  started_at: Schema.NullOr(Schema.DateFromSelf),
  finished_at: Schema.NullOr(Schema.DateFromSelf)
})
export type StepRow = typeof StepRow.Type

/** The hitl_requests table's row; the contract's `HitlRequest` is derived from it (`id` is its `request_id`). */
export const HitlRow = Schema.Struct({
  id: Schema.UUID,
  run_id: Schema.UUID,
  workflow_id: WorkflowId,
  node_id: Schema.String,
  type: Schema.Literal("approval", "ask_human", "form"),
  prompt: Schema.String,
  choices: Schema.NullOr(Schema.Array(Schema.String)),
  form_schema: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  assignee: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  status: Schema.Literal("pending", "claimed", "completed", "cancelled"),
  claimed_by: Schema.NullOr(Schema.UUID),
  response: Schema.NullOr(Schema.Unknown),
  responded_by: Schema.NullOr(Schema.UUID),
  deferred_token: Schema.String,
  created_at: Schema.DateFromSelf,
  responded_at: Schema.NullOr(Schema.DateFromSelf)
})
export type HitlRow = typeof HitlRow.Type
