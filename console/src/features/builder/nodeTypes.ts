import { Either, JSONSchema, ParseResult, Schema } from "effect"
import * as Dag from "../../../../schemas/Dag.js"
import type { DocNode, Json } from "./dagDoc.js"

/**
 * The node types the palette offers, each with the schema of its config block: the same schemas
 * (`schemas/Dag.ts`) the server checks a DAG with before it publishes, so the side panel's form
 * and its messages are the server's rules.
 */
export interface NodeTypeInfo {
  readonly type: Dag.NodeType
  readonly label: string
  readonly hint: string
  readonly configKey: string
  readonly schema: Json
  readonly defaults: Json
}

const jsonSchema = (s: Schema.Schema.Any) => JSONSchema.make(s) as unknown as Json

export const NODE_TYPES: ReadonlyArray<NodeTypeInfo> = [
  {
    type: "agent",
    label: "Agent",
    hint: "An AI step: answers, classifies, extracts, searches knowledge, calls tools",
    configKey: "agent_config",
    schema: jsonSchema(Dag.AgentConfig),
    defaults: { agent_type: "respond", type_version: "v1", system_prompt_template: "" }
  },
  {
    type: "call_aie",
    label: "Call AI Employee",
    hint: "Runs another published AI Employee as a child run",
    configKey: "call_aie_config",
    schema: jsonSchema(Dag.CallAieConfig),
    defaults: { workflow_id: "" }
  },
  {
    type: "send_email",
    label: "Send email",
    hint: "Sends an email through an integration",
    configKey: "send_email_config",
    schema: jsonSchema(Dag.SendEmailConfig),
    defaults: { to: "", subject: "", body_text: "" }
  },
  {
    type: "notify_user",
    label: "Nudge",
    hint: "Sends, updates or closes a nudge card",
    configKey: "notify_user_config",
    schema: jsonSchema(Dag.NotifyUserConfig),
    defaults: { operation: "send", mode: "notify", title: "", body: "" }
  },
  {
    type: "live_agent_transfer",
    label: "Hand to a person",
    hint: "Raises a ticket on a group's queue",
    configKey: "live_agent_transfer_config",
    schema: jsonSchema(Dag.LiveAgentTransferConfig),
    defaults: { group_id: "", summary: "" }
  },
  {
    type: "schedule",
    label: "Schedule",
    hint: "Starts or stops the AI Employee's own schedule (dashboard)",
    configKey: "schedule_config",
    schema: jsonSchema(Dag.ScheduleConfig),
    defaults: { operation: "start", cron: "0 9 * * 1-5", timezone: "UTC" }
  }
]

export const HITL_SCHEMA = jsonSchema(Dag.Hitl)

export const typeInfo = (type: string) => NODE_TYPES.find((t) => t.type === type)

export const newNode = (info: NodeTypeInfo, id: string, position: { readonly x: number; readonly y: number }): DocNode => ({
  id,
  type: info.type,
  name: info.label,
  position,
  [info.configKey]: info.defaults
})

const decodeNode = Schema.decodeUnknownEither(Dag.DagNode, { errors: "all", onExcessProperty: "ignore" })

/**
 * What is wrong with a node, by field path (`agent_config.system_prompt_template`, `id`), as the
 * server's schema says it; an empty map when the node is valid.
 */
export const nodeProblems = (node: DocNode): ReadonlyMap<string, string> => {
  const info = typeInfo(node.type)
  if (info === undefined) return new Map([["type", `No node type '${node.type}'`]])
  // The union would report every other type's fields: the node is checked against its own type.
  const own = Schema.decodeUnknownEither(
    Dag.DagNode.members.find((m) => m.fields.type.literals[0] === node.type) as unknown as Schema.Schema<unknown>,
    { errors: "all", onExcessProperty: "ignore" }
  )
  const result = own(node)
  if (Either.isRight(result)) return new Map()
  const out = new Map<string, string>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(result.left)) {
    const path = issue.path.map(String).join(".")
    if (!out.has(path)) out.set(path, issue.message)
  }
  return out
}

/** Whether the whole node decodes (what publish needs of its shape). */
export const nodeIsValid = (node: DocNode) => Either.isRight(decodeNode(node))

/** A template reference and where it points, offered while writing instructions. */
export interface Reference {
  readonly path: string
  readonly from: string
}

/** What `{{...}}` may name in a node: the start node's inputs, upstream nodes' outputs and HITL answers, the run and chat. */
export const referencesFor = (inputSchema: Json, upstream: ReadonlyArray<DocNode>): ReadonlyArray<Reference> => {
  const inputs = Object.keys(typeof inputSchema.properties === "object" && inputSchema.properties !== null ? inputSchema.properties : {})
  return [
    ...inputs.map((name) => ({ path: `workflow_input.${name}`, from: "Start" })),
    ...upstream.flatMap((n) => [
      ...outputFields(n).map((f) => ({ path: `nodes.${n.id}.output${f === "" ? "" : `.${f}`}`, from: n.name ?? n.id })),
      ...(n.hitl !== undefined ? [{ path: `nodes.${n.id}.hitl`, from: n.name ?? n.id }] : [])
    ]),
    { path: "run.id", from: "Run" },
    { path: "run.trigger_type", from: "Run" },
    { path: "chat.message", from: "Chat" },
    { path: "chat.history", from: "Chat" }
  ]
}

/** The fields of a node's output by agent type (00-decisions section 3); "" is the whole output. */
const outputFields = (node: DocNode): ReadonlyArray<string> => {
  if (node.type !== "agent") return [""]
  const config = (node.agent_config ?? {}) as Json
  switch (config.agent_type) {
    case "intent_classification":
      return ["intent", "confidence", "eligible"]
    case "search_respond":
      return ["text", "citations"]
    case "rule_validation":
      return ["passed", "results"]
    case "respond":
      return ["text"]
    default:
      return ["", "text"]
  }
}
