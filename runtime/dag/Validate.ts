import { Either, ParseResult, Schema } from "effect"
import type { AgentTypeIssue, DagWarning, NodeEnvelope } from "../../schemas/Dag.js"
import { Edge, Output } from "../../schemas/Dag.js"
import type { NodeContract } from "../nodes/NodeType.js"
import type { DagFacts } from "./DagFacts.js"
import { error, warning } from "./Findings.js"
import { makeGraph, topologicalOrder } from "./Graph.js"
import { isValidJsonSchema } from "./JsonSchema.js"
import { classifyRef, templateRefs } from "./TemplateRefs.js"

export type { DagFacts } from "./DagFacts.js"

export interface DagReport {
  readonly warnings: ReadonlyArray<DagWarning>
  readonly agentTypeIssues: ReadonlyArray<AgentTypeIssue>
}

type Json = Record<string, unknown>
const isObject = (u: unknown): u is Json => u !== null && typeof u === "object" && !Array.isArray(u)
const asArray = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])

const decodeEdge = Schema.decodeUnknownEither(Edge)
const decodeOutput = Schema.decodeUnknownEither(Output)
const formatIssue = (e: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(e)
    .map((i) => `${i.path.join(".")}${i.path.length > 0 ? ": " : ""}${i.message}`)
    .join("; ")

/**
 * Checks a saved DAG. Every finding is reported; `error` findings block publish, `warning`
 * findings are advice. Pure: all lookups arrive in `facts`; each node type checks its own nodes.
 */
export const validateDag = (dag: unknown, facts: DagFacts, nodeTypes: ReadonlyMap<string, NodeContract>): DagReport => {
  const out: Array<DagWarning> = []
  const agentTypeIssues: Array<AgentTypeIssue> = []
  if (!isObject(dag)) return { warnings: [error("DAG_INVALID", "dag_definition must be an object")], agentTypeIssues }

  const rawNodes = asArray(dag.nodes)
  if (rawNodes.length === 0) out.push(error("DAG_EMPTY", "The DAG has no nodes"))

  // Node ids and shapes
  const ids: Array<string> = []
  const nodes: Array<NodeEnvelope> = []
  rawNodes.forEach((raw, index) => {
    const id = isObject(raw) && typeof raw.id === "string" ? raw.id : undefined
    if (id === undefined) {
      out.push(error("NODE_INVALID", `nodes[${index}] has no string id`))
      return
    }
    if (ids.includes(id)) out.push(error("NODE_ID_DUPLICATE", `Node id '${id}' is used more than once`, id))
    else ids.push(id)
    const type = isObject(raw) ? raw.type : undefined
    const contract = typeof type === "string" ? nodeTypes.get(type) : undefined
    if (contract === undefined) {
      out.push(
        typeof type === "string"
          ? error("NODE_TYPE_UNKNOWN", `Unknown node type '${type}'`, id)
          : error("NODE_INVALID", `Node '${id}': type: is missing or not a string`, id)
      )
      return
    }
    const decoded = contract.decode(raw)
    if (Either.isLeft(decoded)) {
      out.push(error("NODE_INVALID", `Node '${id}': ${formatIssue(decoded.left)}`, id))
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

  // Checks every node has, then its own type's
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const context = {
    facts,
    graph,
    nodes: byId,
    rereadsContext: (nodeId: string) => {
      const n = byId.get(nodeId)
      return n !== undefined && nodeTypes.get(n.type)?.rereadsContext === true
    },
    agentTypeIssue: (issue: AgentTypeIssue) => {
      agentTypeIssues.push(issue)
    }
  }
  for (const node of nodes) {
    const contract = nodeTypes.get(node.type)
    if (contract === undefined) continue
    if (contract.unavailable !== undefined) {
      out.push(error("NODE_TYPE_UNAVAILABLE", `Node '${node.id}' is a ${node.type} node, which cannot run yet (${contract.unavailable})`, node.id))
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
    out.push(...contract.check(node, context))
  }

  if (nodes.some((n) => nodeTypes.get(n.type)?.needsModel(n) === true) && !facts.llmAvailable) {
    out.push(error("NO_LLM_PROVIDER", "No LLM completion model is enabled for this AI Employee"))
  }
  return { warnings: out, agentTypeIssues }
}

export const blocksPublish = (report: DagReport) => report.warnings.some((w) => w.severity === "error")
