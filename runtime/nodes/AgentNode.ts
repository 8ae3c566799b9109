import { Effect } from "effect"
import { AgentNode as AgentNodeSchema, type DagWarning } from "../../schemas/Dag.js"
import { AgentRunner } from "../agents/AgentRunner.js"
import { lookupAgentType } from "../agents/Catalog.js"
import { presetProblem } from "../agents/Presets.js"
import type { NodeCheckContext } from "../dag/DagFacts.js"
import { error } from "../dag/Findings.js"
import { checkJsonSchema } from "../dag/JsonSchema.js"
import { defineNode, done, type NodeExecution } from "./NodeType.js"

type AgentNode = typeof AgentNodeSchema.Type

/** A run's own search settings replace the step's `type_config.top_k` / `min_score`; its knowledge bases add to the step's. */
const withSearchOverrides = (config: AgentNode["agent_config"], overrides: NodeExecution["searchOverrides"]): AgentNode["agent_config"] =>
  overrides === null
    ? config
    : {
      ...config,
      ...(overrides.knowledge_base_ids !== undefined && overrides.knowledge_base_ids.length > 0
        ? { knowledge_base_ids: [...new Set([...(config.knowledge_base_ids ?? []), ...overrides.knowledge_base_ids])] }
        : {}),
      type_config: {
        ...(config.type_config ?? {}),
        ...(overrides.top_k !== undefined ? { top_k: overrides.top_k } : {}),
        ...(overrides.min_score !== undefined ? { min_score: overrides.min_score } : {})
      }
    }

/** The agent type version is live, the preset fits, MCP servers are approved, tools exist and their configuration fits. */
const check = (node: AgentNode, { facts, agentTypeIssue }: NodeCheckContext): ReadonlyArray<DagWarning> => {
  const out: Array<DagWarning> = []
  const c = node.agent_config
  const found = lookupAgentType(c.agent_type, c.type_version)
  const problem = found === undefined ? "unknown" : found.status === "live" ? undefined : found.status
  if (problem !== undefined) {
    agentTypeIssue({ node_id: node.id, agent_type: c.agent_type, type_version: c.type_version, problem })
    out.push(error("AGENT_TYPE_VERSION_INVALID", `Agent type ${c.agent_type} ${c.type_version} is ${problem}`, node.id))
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
    const problems = tool.configSchema === undefined ? [] : checkJsonSchema(tool.configSchema, c.tool_config?.[id] ?? {})
    if (problems.length > 0) {
      out.push(error(
        "TOOL_CONFIG_INVALID",
        `Configuration of tool '${id}': ${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}`,
        node.id
      ))
    }
  }
  return out
}

const isObject = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === "object" && !Array.isArray(u)

/**
 * Whether a step calls a model: search_respond with `answer: false` only retrieves, and
 * rule_validation whose rules all carry a condition only checks them on the run context.
 */
const agentNeedsModel = (config: { readonly agent_type: string; readonly type_config?: unknown }) => {
  const typeConfig = isObject(config.type_config) ? config.type_config : {}
  switch (config.agent_type) {
    case "search_respond":
      return typeConfig.answer !== false
    case "rule_validation": {
      const rules = Array.isArray(typeConfig.rules) ? typeConfig.rules : []
      return rules.length === 0 || !rules.every((rule) => isObject(rule) && rule.condition !== undefined)
    }
    default:
      return true
  }
}

/**
 * Agent steps run through the agent runner, the same code as the agents API's test-execute. Its
 * failures come classified from the runner (a model's refusal, a step set up wrong).
 */
export const AgentNode = defineNode({
  type: "agent",
  schema: AgentNodeSchema,
  failures: {},
  rereadsContext: true,
  refs: (node) => ({ mcpServerIds: node.agent_config.mcp_server_ids ?? [], toolIds: node.agent_config.action_ids ?? [] }),
  needsModel: (node) => agentNeedsModel(node.agent_config),
  check,
  make: () =>
    Effect.map(AgentRunner, (runner) => ({
      execute: (execution: NodeExecution, node: AgentNode) =>
        runner.run({
          runId: execution.runId,
          tenantId: execution.tenantId,
          agentConfig: withSearchOverrides(node.agent_config, execution.searchOverrides),
          context: execution.context,
          config: execution.config,
          isDryRun: execution.isDryRun,
          userId: execution.startedBy,
          emitToken: execution.emitToken,
          emitEvent: execution.emitEvent
        }).pipe(Effect.map(done))
    }))
})
