import { Schema } from "effect"
import { DagDefinition, DagWarning } from "./Dag.js"
import { TenantId, UserId, WorkflowId } from "./Ids.js"
import { optionalPageSize } from "./Pagination.js"
import { BooleanFromString, IntFromString } from "./QueryParams.js"

export const InteractionType = Schema.Literal("chat", "form", "dashboard", "voice")
export type InteractionType = typeof InteractionType.Type

export const LlmMode = Schema.Literal("ALL", "SELECTED", "CUSTOM")
export const OptimizationPriority = Schema.Literal("MOST_ACCURATE", "CHEAPEST", "BALANCED", "AUTO", "FASTEST")

const Json = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const LlmConfig = Schema.Struct({
  llm_mode: LlmMode,
  selected_model_ids: Schema.Array(Schema.String),
  custom_model_config: Json,
  optimization_priority: OptimizationPriority,
  data_protection_fields: Schema.Array(Schema.String),
  use_own_providers: Schema.Boolean
})
export type LlmConfig = typeof LlmConfig.Type

export const ChatButton = Schema.Struct({ label: Schema.String, value: Schema.String })

/** The chat-UX part of the configuration (names of our design; 01 leaves them open). */
export const ChatUxConfig = Schema.Struct({
  welcome_message: Schema.NullOr(Schema.String),
  welcome_buttons: Schema.Array(ChatButton),
  feedback_enabled: Schema.Boolean,
  feedback_categories: Schema.Array(Schema.String),
  feedback_workflow_id: Schema.NullOr(WorkflowId)
})

export const WorkflowConfig = Schema.Struct({ ...LlmConfig.fields, ...ChatUxConfig.fields })
export type WorkflowConfig = typeof WorkflowConfig.Type

export const defaultWorkflowConfig: WorkflowConfig = {
  llm_mode: "ALL",
  selected_model_ids: [],
  custom_model_config: {},
  optimization_priority: "AUTO",
  data_protection_fields: [],
  use_own_providers: false,
  welcome_message: null,
  welcome_buttons: [],
  feedback_enabled: false,
  feedback_categories: [],
  feedback_workflow_id: null
}

/** PUT config: every field optional, missing ones take their defaults. */
export const PutConfigRequest = Schema.partial(WorkflowConfig)
/** PATCH llm-config: merges only the LLM fields given; chat-UX fields stay. */
export const PatchLlmConfigRequest = Schema.partial(LlmConfig)

export const BuilderState = Schema.Literal("draft", "published", "unpublished_changes")

export const Workflow = Schema.Struct({
  id: WorkflowId,
  tenant_id: TenantId,
  name: Schema.String,
  description: Schema.optional(Schema.String),
  interaction_type: InteractionType,
  status: Schema.Literal("draft", "published"),
  latest_version: Schema.Int,
  active_version: Schema.optional(Schema.Int),
  builder_state: BuilderState,
  icon: Schema.optional(Schema.String),
  category: Schema.optional(Schema.String),
  dag_definition: DagDefinition,
  knowledge_base_ids: Schema.Array(Schema.String),
  public_app: Schema.Boolean,
  archived: Schema.Boolean,
  archived_at: Schema.optional(Schema.Date),
  adopted_at: Schema.optional(Schema.Date),
  adopted_from_workflow_id: Schema.optional(WorkflowId),
  created_by: Schema.NullOr(UserId),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type Workflow = typeof Workflow.Type

/** Save responses carry the DAG findings. */
export const SavedWorkflow = Schema.Struct({ ...Workflow.fields, warnings: Schema.Array(DagWarning) })

const Name = Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))

export const CreateWorkflowRequest = Schema.Struct({
  name: Name,
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(5000))),
  interaction_type: Schema.optionalWith(InteractionType, { default: () => "form" as const }),
  icon: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  category: Schema.optional(Schema.String.pipe(Schema.maxLength(200)))
})

const workflowFields = {
  name: Name,
  description: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(5000)))),
  dag_definition: DagDefinition,
  interaction_type: InteractionType,
  icon: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200)))),
  category: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  knowledge_base_ids: Schema.optional(Schema.Array(Schema.UUID)),
  public_app: Schema.optional(Schema.Boolean)
}

/** `PUT` replaces the whole AI Employee; `interaction_type` takes its documented default, `form`. */
export const UpdateWorkflowRequest = Schema.Struct({
  ...workflowFields,
  interaction_type: Schema.optionalWith(InteractionType, { default: () => "form" as const })
})

export const PatchWorkflowRequest = Schema.partial(Schema.Struct(workflowFields))
export type PatchWorkflowRequest = typeof PatchWorkflowRequest.Type

export const ListWorkflowsParams = Schema.Struct({
  page: Schema.optional(IntFromString(1)),
  page_size: optionalPageSize,
  cursor: Schema.optional(Schema.String),
  interaction_type: Schema.optional(InteractionType),
  archived: Schema.optionalWith(BooleanFromString, { default: () => false }),
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200)))
})

export const WorkflowPage = Schema.Struct({
  items: Schema.Array(Workflow),
  total: Schema.Int,
  page: Schema.Int,
  page_size: Schema.Int,
  has_more: Schema.Boolean,
  next_cursor: Schema.NullOr(Schema.String)
})

export const CloneRequest = Schema.Struct({ name: Schema.optional(Name) })
export const ShareRequest = Schema.Struct({ target_tenant_id: TenantId })

export const Template = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  description: Schema.String,
  interaction_type: InteractionType,
  category: Schema.String,
  dag_definition: DagDefinition
})
