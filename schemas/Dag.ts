import { Schema } from "effect"
import { Role } from "./Roles.js"

/** The DAG format of 00-decisions section 3. Saved leniently; these schemas are what publish requires. */

export const NodeId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, {
    message: () => "node ids are 1-64 letters, digits, '_' or '-', starting with a letter or '_'"
  })
)

export const JsonSchemaObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const Assignee = Schema.Union(
  Schema.Struct({ user_email: Schema.String }),
  Schema.Struct({ role: Role }),
  Schema.Struct({ group_id: Schema.UUID })
)

export const Hitl = Schema.Struct({
  type: Schema.Literal("approval", "ask_human", "form"),
  prompt: Schema.String,
  choices: Schema.optional(Schema.Array(Schema.String)),
  form_schema: Schema.optional(JsonSchemaObject),
  assignee: Assignee
})

export const AgentConfig = Schema.Struct({
  agent_type: Schema.String,
  type_version: Schema.String.pipe(Schema.pattern(/^v\d+$/, { message: () => "type_version is v0, v1, ..." })),
  /** The preset the step was made from (`GET /agent/agent-presets`); its defaults fill what the step leaves out. */
  preset: Schema.optional(Schema.String),
  system_prompt_template: Schema.String,
  inputs: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  type_config: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  llm_config: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  action_ids: Schema.optional(Schema.Array(Schema.String)),
  /** Per-action configuration, checked against the tool catalog's schema. */
  tool_config: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  mcp_server_ids: Schema.optional(Schema.Array(Schema.String)),
  knowledge_base_ids: Schema.optional(Schema.Array(Schema.String)),
  output_schema: Schema.optional(JsonSchemaObject)
})

export const CallAieConfig = Schema.Struct({
  workflow_id: Schema.UUID,
  input_params: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

export const SendEmailConfig = Schema.Struct({
  integration_id: Schema.optional(Schema.String),
  to: Schema.Union(Schema.String, Schema.Array(Schema.String)),
  cc: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  subject: Schema.String,
  body_text: Schema.optional(Schema.String),
  body_html: Schema.optional(Schema.String)
}).pipe(
  Schema.filter((c) => c.body_text !== undefined || c.body_html !== undefined || "body_text or body_html is required")
)

export const NotifyUserConfig = Schema.Struct({
  operation: Schema.Literal("send", "update", "close"),
  /** park pauses the run until the response or expiry; collect hands the response to trigger_workflow_id. */
  mode: Schema.optionalWith(Schema.Literal("park", "collect", "notify"), { default: () => "notify" as const }),
  card_ref: Schema.optional(Schema.String),
  recipient: Schema.optional(Assignee),
  title: Schema.optional(Schema.String),
  body: Schema.optional(Schema.String),
  actions: Schema.optional(Schema.Array(Schema.Struct({ label: Schema.String, value: Schema.String }))),
  trigger_workflow_id: Schema.optional(Schema.UUID),
  expires_after_seconds: Schema.optional(Schema.Number),
  reminders: Schema.optional(Schema.Struct({ every_seconds: Schema.Number, max: Schema.optional(Schema.Int) }))
})

export const LiveAgentTransferConfig = Schema.Struct({
  group_id: Schema.UUID,
  summary: Schema.String
})

export const ScheduleConfig = Schema.Union(
  Schema.Struct({
    operation: Schema.Literal("start"),
    cron: Schema.String,
    timezone: Schema.String,
    input_params: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  }),
  Schema.Struct({ operation: Schema.Literal("stop") })
)

/** The fields every node has, whatever its type. */
export const nodeBase = {
  id: NodeId,
  name: Schema.optional(Schema.String),
  hitl: Schema.optional(Hitl),
  position: Schema.optional(Schema.Struct({ x: Schema.Number, y: Schema.Number }))
}
const base = nodeBase

/** A node as the runtime reads it whatever its type: its shared fields and its type's name. */
export const NodeEnvelope = Schema.Struct({ ...nodeBase, type: Schema.String })
export type NodeEnvelope = typeof NodeEnvelope.Type

export const AgentNode = Schema.Struct({ ...base, type: Schema.Literal("agent"), agent_config: AgentConfig })
export const CallAieNode = Schema.Struct({ ...base, type: Schema.Literal("call_aie"), call_aie_config: CallAieConfig })
export const SendEmailNode = Schema.Struct({
  ...base,
  type: Schema.Literal("send_email"),
  send_email_config: SendEmailConfig
})
export const NotifyUserNode = Schema.Struct({
  ...base,
  type: Schema.Literal("notify_user"),
  notify_user_config: NotifyUserConfig
})
export const LiveAgentTransferNode = Schema.Struct({
  ...base,
  type: Schema.Literal("live_agent_transfer"),
  live_agent_transfer_config: LiveAgentTransferConfig
})
export const ScheduleNode = Schema.Struct({ ...base, type: Schema.Literal("schedule"), schedule_config: ScheduleConfig })

export const NodeTypes = ["agent", "call_aie", "send_email", "notify_user", "live_agent_transfer", "schedule"] as const
export type NodeType = typeof NodeTypes[number]

export const DagNode = Schema.Union(AgentNode, CallAieNode, SendEmailNode, NotifyUserNode, LiveAgentTransferNode, ScheduleNode)
export type DagNode = typeof DagNode.Type

export const ConditionOp = Schema.Literal("eq", "neq", "in", "not_in", "exists", "not_exists", "gt", "lt")

export const Condition = Schema.Struct({
  ref: Schema.String,
  op: ConditionOp,
  value: Schema.optional(Schema.Unknown)
})
export type Condition = typeof Condition.Type

export const Edge = Schema.Struct({
  from: Schema.String,
  to: Schema.String,
  condition: Schema.optional(Condition)
})
export type Edge = typeof Edge.Type

export const Output = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1)),
  value: Schema.String,
  exposed: Schema.optionalWith(Schema.Boolean, { default: () => false })
})

export const Dag = Schema.Struct({
  input_schema: Schema.optional(JsonSchemaObject),
  nodes: Schema.optionalWith(Schema.Array(DagNode), { default: () => [] }),
  edges: Schema.optionalWith(Schema.Array(Edge), { default: () => [] }),
  outputs: Schema.optionalWith(Schema.Array(Output), { default: () => [] })
})
export type Dag = typeof Dag.Type

/** How a DAG is stored: a JSON object of whatever shape, so that an unfinished DAG can be saved. */
export const DagDefinition = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export type DagDefinition = typeof DagDefinition.Type

export const Severity = Schema.Literal("warning", "error")

export const DagWarning = Schema.Struct({
  code: Schema.String,
  severity: Severity,
  message: Schema.String,
  node_id: Schema.optional(Schema.String)
})
export type DagWarning = typeof DagWarning.Type

/** An agent-type version a publish refuses. */
export const AgentTypeIssue = Schema.Struct({
  node_id: Schema.String,
  agent_type: Schema.String,
  type_version: Schema.String,
  problem: Schema.Literal("deprecated", "deleted", "broken", "unknown", "pre-release")
})
export type AgentTypeIssue = typeof AgentTypeIssue.Type
