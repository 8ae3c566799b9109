import { Schema } from "effect"
import { TriggerType } from "./Run.js"
import { RunStatus } from "./RunLifecycle.js"

/** A run's own search settings (an evaluation's search_config). */
export const SearchOverrides = Schema.Struct({
  top_k: Schema.optional(Schema.Number),
  min_score: Schema.optional(Schema.Number),
  knowledge_base_ids: Schema.optional(Schema.Array(Schema.String))
})

/**
 * The runs table's row (runtime/run/migrations/RunTables.ts) as the pg driver reads it: the one
 * description of a run row. Each reader picks the columns it selects: the kernel's RunRecord,
 * the run API's rows (whose `toRun` makes the contract's Run of them) and the trace store's.
 */
export const RunRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  workflow_id: Schema.String,
  workflow_name: Schema.String,
  version: Schema.Number,
  status: RunStatus,
  trigger_type: TriggerType,
  is_dry_run: Schema.Boolean,
  input_params: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  output: Schema.Unknown,
  named_outputs: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  error: Schema.NullOr(Schema.String),
  parent_run_id: Schema.NullOr(Schema.String),
  parent_node_id: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.String),
  held: Schema.Boolean,
  created_by: Schema.NullOr(Schema.String),
  search_overrides: Schema.NullOr(SearchOverrides),
  created_at: Schema.DateFromSelf,
  started_at: Schema.NullOr(Schema.DateFromSelf),
  finished_at: Schema.NullOr(Schema.DateFromSelf),
  scheduled_fire_time: Schema.NullOr(Schema.DateFromSelf),
  skip_reason: Schema.NullOr(Schema.String)
})
export type RunRow = typeof RunRow.Type

/** What names a run wherever it is shown: its id, its AI Employee and version, status, trigger. */
export const RUN_HEADER = ["id", "workflow_id", "workflow_name", "version", "status", "trigger_type", "is_dry_run"] as const
