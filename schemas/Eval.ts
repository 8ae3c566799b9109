import { Schema } from "effect"
import { PageParams } from "./Pagination.js"
import { BooleanFromString } from "./QueryParams.js"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const ColumnMap = Schema.Record({ key: Schema.String, value: Schema.String }).annotations({ description: "field name -> CSV column" })

export const Dataset = Schema.Struct({
  id: Schema.UUID,
  workflow_id: Schema.UUID,
  name: Schema.String,
  headers: Schema.Array(Schema.String),
  input_map: Schema.NullOr(ColumnMap),
  expected_output_map: Schema.NullOr(ColumnMap),
  row_count: Schema.Number,
  /** Rows materialised by the last mapping (0 before). */
  mapped_rows: Schema.Number,
  created_at: Schema.Date
})
export type Dataset = typeof Dataset.Type

export const DatasetList = Schema.Struct({ items: Schema.Array(Dataset) })

export const MappingRequest = Schema.Struct({
  input_map: ColumnMap,
  expected_output_map: Schema.optional(ColumnMap),
  /** A CSV that replaces the uploaded one before mapping. */
  csv_data: Schema.optional(Schema.String),
  /** The column holding each row's instructions for the simulated user (default: a column named simulator_instructions). */
  simulator_instructions_column: Schema.optional(Schema.String)
})

export const DatasetRow = Schema.Struct({
  id: Schema.UUID,
  position: Schema.Number,
  inputs: JsonObject,
  expected_output: Schema.optional(JsonObject),
  simulator_instructions: Schema.optional(Schema.String)
})
export type DatasetRow = typeof DatasetRow.Type

export const VariableCatalog = Schema.Array(Schema.Struct({
  name: Schema.String,
  type: Schema.Literal("dataset_input", "agent_output"),
  description: Schema.optional(Schema.String)
}))

export const RubricRequest = Schema.Struct({
  workflow_id: Schema.UUID,
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  /** A JSON Schema of an object whose properties are the score fields (numbers, integers or booleans). */
  rubric_schema: JsonObject,
  rubric_instructions: Schema.String.pipe(Schema.minLength(1)),
  variable_catalog: Schema.optional(VariableCatalog)
})

export const Rubric = Schema.Struct({
  id: Schema.UUID,
  ...RubricRequest.fields,
  variable_catalog: Schema.NullOr(VariableCatalog),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type Rubric = typeof Rubric.Type

export const RubricList = Schema.Struct({ items: Schema.Array(Rubric) })

export const RubricGenerateRequest = Schema.Struct({
  description: Schema.String.pipe(Schema.minLength(1)),
  variable_catalog: Schema.optional(VariableCatalog),
  workflow_id: Schema.optional(Schema.UUID)
})

export const RubricDraft = Schema.Struct({
  name: Schema.String,
  rubric_schema: JsonObject,
  rubric_instructions: Schema.String,
  variable_catalog: Schema.NullOr(VariableCatalog)
})

export const SearchConfig = Schema.Struct({
  search_top_k: Schema.optional(Schema.Int.pipe(Schema.between(1, 50))),
  search_min_score: Schema.optional(Schema.Number.pipe(Schema.between(0, 1)))
})

export const ConfigRequest = Schema.Struct({
  workflow_id: Schema.UUID,
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  target_type: Schema.Literal("workflow", "agent"),
  /** For agent targets: the agent node of the AI Employee's active version scored alone. */
  target_node_id: Schema.optional(Schema.String),
  rubric_id: Schema.UUID,
  judge_model: Schema.optional(Schema.String),
  simulator_model: Schema.optional(Schema.String),
  simulator_instructions: Schema.optional(Schema.String),
  max_turns: Schema.optional(Schema.Int.pipe(Schema.between(1, 20))),
  search_config: Schema.optional(SearchConfig)
})

export const Config = Schema.Struct({
  id: Schema.UUID,
  workflow_id: Schema.UUID,
  name: Schema.String,
  target_type: Schema.Literal("workflow", "agent"),
  target_node_id: Schema.NullOr(Schema.String),
  rubric_id: Schema.UUID,
  judge_model: Schema.NullOr(Schema.String),
  simulator_model: Schema.NullOr(Schema.String),
  simulator_instructions: Schema.NullOr(Schema.String),
  max_turns: Schema.NullOr(Schema.Number),
  search_config: Schema.NullOr(SearchConfig),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type Config = typeof Config.Type

export const ConfigList = Schema.Struct({ items: Schema.Array(Config) })

export const ScoreStats = Schema.Struct({ mean: Schema.Number, median: Schema.Number, p5: Schema.Number, p95: Schema.Number })

export const AggregateMetrics = Schema.Struct({
  total_rows: Schema.Number,
  completed_rows: Schema.Number,
  failed_rows: Schema.Number,
  rubric_scores: Schema.Record({ key: Schema.String, value: ScoreStats })
})

export const EvalRunStatus = Schema.Literal("pending", "running", "completed", "failed", "cancelled")

export const EvalRun = Schema.Struct({
  id: Schema.UUID,
  workflow_id: Schema.UUID,
  config_id: Schema.UUID,
  dataset_id: Schema.UUID,
  /** The version of the AI Employee scored. */
  version: Schema.Number,
  status: EvalRunStatus,
  is_preview: Schema.Boolean,
  total_rows: Schema.Number,
  completed_rows: Schema.Number,
  failed_rows: Schema.Number,
  aggregate_metrics: AggregateMetrics,
  error: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  started_at: Schema.NullOr(Schema.Date),
  finished_at: Schema.NullOr(Schema.Date)
})
export type EvalRun = typeof EvalRun.Type

export const EvalRunRequest = Schema.Struct({
  config_id: Schema.UUID,
  dataset_id: Schema.UUID,
  is_preview: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** The version to score (default: the latest saved, so a draft can be scored before it is published). */
  version: Schema.optional(Schema.Int.pipe(Schema.positive()))
})

export const EvalRunFilters = Schema.Struct({
  ...PageParams.fields,
  workflow_id: Schema.optional(Schema.UUID),
  config_id: Schema.optional(Schema.UUID),
  dataset_id: Schema.optional(Schema.UUID),
  status: Schema.optional(EvalRunStatus),
  is_preview: Schema.optional(BooleanFromString)
})

export const ResultStatus = Schema.Literal("pending", "running", "completed", "failed", "cancelled")

export const EvalResult = Schema.Struct({
  id: Schema.UUID,
  run_id: Schema.UUID,
  row_id: Schema.UUID,
  position: Schema.Number,
  status: ResultStatus,
  inputs: JsonObject,
  expected_output: Schema.NullOr(JsonObject),
  actual_output: Schema.Unknown,
  simulator_transcript: Schema.NullOr(Schema.Array(Schema.Struct({ role: Schema.String, content: Schema.String }))),
  rubric_scores: Schema.NullOr(JsonObject),
  token_usage: JsonObject,
  duration_ms: Schema.NullOr(Schema.Number),
  workflow_run_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String)
})
export type EvalResult = typeof EvalResult.Type

export const ResultFilters = Schema.Struct({ ...PageParams.fields, status: Schema.optional(ResultStatus) })

export const CompareParams = Schema.Struct({ run_id_1: Schema.UUID, run_id_2: Schema.UUID })

export const Comparison = Schema.Struct({
  run_1: EvalRun,
  run_2: EvalRun,
  pairs: Schema.Array(Schema.Struct({
    row_id: Schema.UUID,
    position: Schema.Number,
    inputs: JsonObject,
    result_1: Schema.NullOr(EvalResult),
    result_2: Schema.NullOr(EvalResult),
    /** Per score field: result_2's score minus result_1's, where both are numbers. */
    score_deltas: JsonObject
  }))
})
export type Comparison = typeof Comparison.Type
