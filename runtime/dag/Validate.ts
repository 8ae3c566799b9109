import { Either, ParseResult, Schema } from "effect"
import { parseCron } from "../../platform/Cron.js"
import type { AgentTypeIssue, DagWarning } from "../../schemas/Dag.js"
import { DagNode, Edge, Output } from "../../schemas/Dag.js"
import type { ErrorCode } from "../../schemas/ErrorCodes.js"
import type { Role } from "../../schemas/Roles.js"
import { lookupAgentType } from "../agents/Catalog.js"
import { presetProblem } from "../agents/Presets.js"
import { makeGraph, reachableFrom, topologicalOrder } from "./Graph.js"
import { checkJsonSchema, isValidJsonSchema } from "./JsonSchema.js"
import { classifyRef, templateRefs } from "./TemplateRefs.js"

/** What the validator needs to know about the world, resolved beforehand so that it stays pure. */
export interface DagFacts {
  readonly llmAvailable: boolean
  readonly memberEmails: ReadonlySet<string>
  readonly resolvableRoles: ReadonlySet<Role>
  readonly groupIds: ReadonlySet<string>
  /** Groups that have a ticket queue (a live_agent_transfer target needs one). */
  readonly queueGroupIds: ReadonlySet<string>
  readonly mcpServers: ReadonlyMap<string, "approved" | "pending">
  readonly tools: ReadonlyMap<string, { readonly configSchema?: unknown }>
  /** Published AI Employees of the tenant that a call_aie node may call. */
  readonly callableWorkflows: ReadonlySet<string>
  readonly selfWorkflowId: string
  /** The AI Employee's interaction_type (a schedule node needs `dashboard`). */
  readonly interactionType: string
  /** `<node id>:<preset>` of steps that may keep a retired preset. */
  readonly legacySteps: ReadonlySet<string>
  /** Node types the runtime cannot execute yet, with why. */
  readonly unavailableNodeTypes: ReadonlyMap<string, string>
}

export interface DagReport {
  readonly warnings: ReadonlyArray<DagWarning>
  readonly agentTypeIssues: ReadonlyArray<AgentTypeIssue>
}

type Json = Record<string, unknown>
const isObject = (u: unknown): u is Json => u !== null && typeof u === "object" && !Array.isArray(u)
const asArray = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])

/** A blocking finding: its code is an error code (a refused publish answers it). */
const error = (code: ErrorCode, message: string, node_id?: string): DagWarning =>
  node_id === undefined ? { code, severity: "error", message } : { code, severity: "error", message, node_id }
const warning = (code: string, message: string, node_id?: string): DagWarning =>
  node_id === undefined ? { code, severity: "warning", message } : { code, severity: "warning", message, node_id }

const decodeNode = Schema.decodeUnknownEither(DagNode)
const decodeEdge = Schema.decodeUnknownEither(Edge)
const decodeOutput = Schema.decodeUnknownEither(Output)
const formatIssue = (e: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(e)
    .map((i) => `${i.path.join(".")}${i.path.length > 0 ? ": " : ""}${i.message}`)
    .join("; ")

/**
 * Checks a saved DAG. Every finding is reported; `error` findings block publish, `warning`
 * findings are advice. Pure: all lookups arrive in `facts`.
 */
export const validateDag = (dag: unknown, facts: DagFacts): DagReport => {
  const out: Array<DagWarning> = []
  const agentTypeIssues: Array<AgentTypeIssue> = []
  if (!isObject(dag)) return { warnings: [error("DAG_INVALID", "dag_definition must be an object")], agentTypeIssues }

  const rawNodes = asArray(dag.nodes)
  if (rawNodes.length === 0) out.push(error("DAG_EMPTY", "The DAG has no nodes"))

  // Node ids and shapes
  const ids: Array<string> = []
  const nodes: Array<DagNode> = []
  rawNodes.forEach((raw, index) => {
    const id = isObject(raw) && typeof raw.id === "string" ? raw.id : undefined
    if (id === undefined) {
      out.push(error("NODE_INVALID", `nodes[${index}] has no string id`))
      return
    }
    if (ids.includes(id)) out.push(error("NODE_ID_DUPLICATE", `Node id '${id}' is used more than once`, id))
    else ids.push(id)
    const decoded = decodeNode(raw)
    if (Either.isLeft(decoded)) {
      const type = isObject(raw) ? raw.type : undefined
      out.push(
        typeof type === "string" && !["agent", "call_aie", "send_email", "notify_user", "live_agent_transfer", "schedule"].includes(type)
          ? error("NODE_TYPE_UNKNOWN", `Unknown node type '${type}'`, id)
          : error("NODE_INVALID", `Node '${id}': ${formatIssue(decoded.left)}`, id)
      )
    } else {
      nodes.push(decoded.right)
    }
  })
  const idSet = new Set(ids)

  // Edges and the graph
  const edges: Array<{ from: string; to: string; condition?: { ref: string } | undefined }> = []
  asArray(dag.edges).forEach((raw, index) => {
    const decoded = decodeEdge(raw)
    if (Either.isLeft(decoded)) {
      out.push(error("EDGE_INVALID", `edges[${index}]: ${formatIssue(decoded.left)}`))
      return
    }
    const edge = decoded.right
    for (const end of [edge.from, edge.to]) {
      if (!idSet.has(end)) out.push(error("EDGE_UNKNOWN_NODE", `Edge ${edge.from} -> ${edge.to} names unknown node '${end}'`, end))
    }
    if (edge.condition !== undefined) {
      const root = classifyRef(edge.condition.ref)
      if (root.kind === "invalid") {
        out.push(error("CONDITION_INVALID_REF", `Condition ref '${edge.condition.ref}' is not a run-context path`, edge.to))
      } else if (root.kind === "node" && !idSet.has(root.nodeId)) {
        out.push(error("CONDITION_UNKNOWN_NODE", `Condition ref '${edge.condition.ref}' names unknown node`, edge.to))
      }
    }
    edges.push(edge)
  })
  const graph = makeGraph(ids, edges)
  const { cyclic } = topologicalOrder(graph)
  if (cyclic.length > 0) {
    out.push(error("DAG_CYCLE", `The edges form a cycle through ${cyclic.join(", ")}`, cyclic[0]))
  }

  // Input schema and outputs
  const inputSchema = dag.input_schema
  const inputNames = new Set(isObject(inputSchema) && isObject(inputSchema.properties) ? Object.keys(inputSchema.properties) : [])
  if (inputSchema !== undefined && (!isObject(inputSchema) || !isValidJsonSchema(inputSchema))) {
    out.push(error("INPUT_SCHEMA_INVALID", "input_schema is not a valid JSON Schema object"))
  }
  asArray(dag.outputs).forEach((raw, index) => {
    const decoded = decodeOutput(raw)
    if (Either.isLeft(decoded)) out.push(error("OUTPUT_INVALID", `outputs[${index}]: ${formatIssue(decoded.left)}`))
  })

  // Template references anywhere in node configurations and outputs
  const checkRefs = (value: unknown, nodeId: string | undefined) => {
    for (const ref of templateRefs(value)) {
      const root = classifyRef(ref)
      if (root.kind === "invalid") out.push(error("TEMPLATE_INVALID_REF", `'{{${ref}}}' is not a run-context path`, nodeId))
      else if (root.kind === "node" && !idSet.has(root.nodeId)) {
        out.push(error("TEMPLATE_UNKNOWN_NODE", `'{{${ref}}}' names unknown node '${root.nodeId}'`, nodeId))
      } else if (root.kind === "input" && inputNames.size > 0 && !inputNames.has(root.name)) {
        out.push(warning("TEMPLATE_UNKNOWN_INPUT", `'{{${ref}}}' is not declared in input_schema`, nodeId))
      }
    }
  }
  rawNodes.forEach((raw) => checkRefs(raw, isObject(raw) && typeof raw.id === "string" ? raw.id : undefined))
  checkRefs(dag.outputs, undefined)

  // Per-type checks on well-formed nodes
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const rereads = (id: string) => {
    const n = byId.get(id)
    return n !== undefined &&
      (n.type === "call_aie" || n.type === "agent")
  }
  for (const node of nodes) {
    const unavailable = facts.unavailableNodeTypes.get(node.type)
    if (unavailable !== undefined) {
      out.push(error("NODE_TYPE_UNAVAILABLE", `Node '${node.id}' is a ${node.type} node, which cannot run yet (${unavailable})`, node.id))
    }
    if (node.hitl !== undefined) {
      const a = node.hitl.assignee
      const ok = "user_email" in a
        ? facts.memberEmails.has(a.user_email.toLowerCase())
        : "role" in a
        ? facts.resolvableRoles.has(a.role)
        : facts.groupIds.has(a.group_id)
      if (!ok) out.push(error("HITL_INVALID_ASSIGNEE", `The HITL assignee of '${node.id}' does not resolve to anyone`, node.id))
      if (node.hitl.type === "ask_human" && node.hitl.choices !== undefined && node.hitl.choices.length === 0) {
        out.push(error("HITL_INVALID_CHOICES", `ask_human on '${node.id}' offers an empty list of choices`, node.id))
      }
      if (node.hitl.type === "form" && node.hitl.form_schema === undefined) {
        out.push(error("HITL_FORM_SCHEMA_MISSING", `The form on '${node.id}' has no form_schema`, node.id))
      }
    }
    switch (node.type) {
      case "agent": {
        const c = node.agent_config
        const found = lookupAgentType(c.agent_type, c.type_version)
        const problem = found === undefined ? "unknown" : found.status === "live" ? undefined : found.status
        if (problem !== undefined) {
          agentTypeIssues.push({ node_id: node.id, agent_type: c.agent_type, type_version: c.type_version, problem })
          out.push(error(
            "AGENT_TYPE_VERSION_INVALID",
            `Agent type ${c.agent_type} ${c.type_version} is ${problem}`,
            node.id
          ))
        }
        if (c.preset !== undefined) {
          const preset = presetProblem(c.preset, c.agent_type, facts.legacySteps.has(`${node.id}:${c.preset}`))
          if (preset !== undefined) out.push(error(preset.code, preset.message, node.id))
        }
        for (const id of c.mcp_server_ids ?? []) {
          const status = facts.mcpServers.get(id)
          if (status === undefined) out.push(error("MCP_SERVER_NOT_FOUND", `MCP server '${id}' does not exist`, node.id))
          else if (status !== "approved") out.push(error("MCP_SERVER_NOT_APPROVED", `MCP server '${id}' is not approved`, node.id))
        }
        for (const id of c.action_ids ?? []) {
          const tool = facts.tools.get(id)
          if (tool === undefined) {
            out.push(error("TOOL_NOT_FOUND", `Tool '${id}' is not in the catalog`, node.id))
            continue
          }
          if (tool.configSchema !== undefined) {
            const problems = checkJsonSchema(tool.configSchema, c.tool_config?.[id] ?? {})
            if (problems.length > 0) {
              out.push(error(
                "TOOL_CONFIG_INVALID",
                `Configuration of tool '${id}': ${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}`,
                node.id
              ))
            }
          }
        }
        break
      }
      case "call_aie": {
        const target = node.call_aie_config.workflow_id
        if (target === facts.selfWorkflowId) {
          out.push(error("CALL_AIE_RECURSION", `'${node.id}' calls its own AI Employee`, node.id))
        } else if (!facts.callableWorkflows.has(target)) {
          out.push(error("CALL_AIE_TARGET_NOT_FOUND", `'${node.id}' calls an AI Employee that is not published here`, node.id))
        }
        break
      }
      case "schedule": {
        if (facts.interactionType !== "dashboard") {
          out.push(error(
            "SCHEDULE_NODE_REQUIRES_DASHBOARD",
            `Schedule node '${node.id}' manages a schedule, which only a dashboard AI Employee has (this one is ${facts.interactionType})`,
            node.id
          ))
        }
        const c = node.schedule_config
        if (c.operation === "start" && !c.cron.includes("{{") && !c.timezone.includes("{{")) {
          const parsed = parseCron(c.cron, c.timezone)
          if (Either.isLeft(parsed)) out.push(error("SCHEDULE_INVALID", `Schedule node '${node.id}': ${parsed.left.message}`, node.id))
        }
        break
      }
      case "live_agent_transfer":
        if (!facts.groupIds.has(node.live_agent_transfer_config.group_id)) {
          out.push(error("TRANSFER_GROUP_NOT_FOUND", `'${node.id}' transfers to a group that does not exist`, node.id))
        } else if (!facts.queueGroupIds.has(node.live_agent_transfer_config.group_id)) {
          out.push(error("TRANSFER_GROUP_NO_QUEUE", `'${node.id}' transfers to a group that has no ticket queue`, node.id))
        }
        break
      case "notify_user": {
        const c = node.notify_user_config
        const downstream = reachableFrom(graph, node.id)
        if (c.mode === "park") {
          if (c.expires_after_seconds === undefined || c.expires_after_seconds <= 0) {
            out.push(error("NUDGE_PARK_REQUIRES_EXPIRY", `Park-mode nudge '${node.id}' needs a positive expires_after_seconds`, node.id))
          }
          const rereading = [...downstream].some((id) => rereads(id))
          if (!rereading) {
            out.push(warning(
              "NUDGE_PARK_NO_DOWNSTREAM_REREAD",
              `Nothing after park-mode nudge '${node.id}' reads the response; the run resumes on pre-park values`,
              node.id
            ))
          }
        } else if (c.trigger_workflow_id !== undefined) {
          const closes = [...downstream].some((id) => {
            const n = byId.get(id)
            return n?.type === "notify_user" && n.notify_user_config.operation === "close"
          })
          if (c.expires_after_seconds === undefined && c.reminders === undefined && !closes) {
            out.push(warning(
              "NUDGE_COLLECT_NEVER_ENDS",
              `Collect-mode nudge '${node.id}' has no expiry, no reminders cadence and no close node downstream`,
              node.id
            ))
          }
        }
        break
      }
      default:
        break
    }
  }

  if (nodes.some((n) => n.type === "agent" && agentNeedsModel(n.agent_config)) && !facts.llmAvailable) {
    out.push(error("NO_LLM_PROVIDER", "No LLM completion model is enabled for this AI Employee"))
  }
  return { warnings: out, agentTypeIssues }
}

/**
 * Whether a step calls a model: search_respond with `answer: false` only retrieves, and
 * rule_validation whose rules all carry a condition only checks them on the run context.
 */
export const agentNeedsModel = (config: { readonly agent_type: string; readonly type_config?: unknown }) => {
  const typeConfig = isObject(config.type_config) ? config.type_config : {}
  switch (config.agent_type) {
    case "search_respond":
      return typeConfig.answer !== false
    case "rule_validation": {
      const rules = asArray(typeConfig.rules)
      return rules.length === 0 || !rules.every((rule) => isObject(rule) && rule.condition !== undefined)
    }
    default:
      return true
  }
}

export const blocksPublish = (report: DagReport) => report.warnings.some((w) => w.severity === "error")
