import { Schema } from "effect"
import { AgentConfig } from "./Dag.js"
import { WorkflowId } from "./Ids.js"
import { Page } from "./Pagination.js"

const Json = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const AgentTypeVersionView = Schema.Struct({
  type: Schema.String,
  version: Schema.String,
  status: Schema.Literal("live", "deprecated", "pre-release", "deleted", "broken"),
  description: Schema.String,
  type_config_schema: Json,
  input_schema: Json,
  output_schema: Json
})

export const AgentTypeView = Schema.Struct({
  type: Schema.String,
  live_version: Schema.NullOr(Schema.String),
  versions: Schema.Array(Schema.Struct({ version: Schema.String, status: Schema.String })),
  description: Schema.String,
  type_config_schema: Json,
  input_schema: Json,
  output_schema: Json
})

export const AgentPresetView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  agent_type: Schema.String,
  type_version: Schema.String,
  offered: Schema.Boolean,
  description: Schema.String,
  system_prompt_template: Schema.NullOr(Schema.String),
  type_config: Json
})

export const AgentDefinition = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  agent_type: Schema.String,
  type_version: Schema.String,
  preset: Schema.NullOr(Schema.String),
  system_prompt_template: Schema.String,
  input_schema: Schema.NullOr(Json),
  llm_config: Json,
  type_config: Json,
  created_by: Schema.NullOr(Schema.UUID),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

export const AgentDefinitionRequest = Schema.Struct({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  agent_type: Schema.String,
  type_version: Schema.optionalWith(Schema.String.pipe(Schema.pattern(/^v\d+$/)), { default: () => "v1" }),
  preset: Schema.optional(Schema.String),
  system_prompt_template: Schema.String,
  input_schema: Schema.optional(Schema.NullOr(Json)),
  llm_config: Schema.optionalWith(Json, { default: () => ({}) }),
  type_config: Schema.optionalWith(Json, { default: () => ({}) })
})

export const AgentDefinitionPage = Page(AgentDefinition)

export const TestExecuteRequest = Schema.Struct({
  agent_config: Schema.Struct({
    ...AgentConfig.fields,
    type_version: Schema.optionalWith(Schema.String.pipe(Schema.pattern(/^v\d+$/)), { default: () => "v1" }),
    input_schema: Schema.optional(Json)
  }),
  inputs: Schema.optionalWith(Json, { default: () => ({}) }),
  knowledge_bases: Schema.optional(Schema.Array(Schema.String)),
  action_ids: Schema.optional(Schema.Array(Schema.String)),
  is_dry_run: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  workflow_id: Schema.optional(WorkflowId)
})

export const TestExecution = Schema.Struct({
  id: Schema.UUID,
  agent_type: Schema.String,
  status: Schema.Literal("running", "completed", "failed"),
  output: Schema.NullOr(Schema.Unknown),
  tokens_used: Schema.Int,
  token_breakdown: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ prompt_tokens: Schema.Int, completion_tokens: Schema.Int, total_tokens: Schema.Int })
  }),
  error: Schema.optional(Schema.String),
  is_dry_run: Schema.Boolean,
  workflow_id: Schema.NullOr(Schema.UUID),
  created_at: Schema.Date,
  finished_at: Schema.NullOr(Schema.Date)
})

export const TestExecutionPage = Page(TestExecution)
