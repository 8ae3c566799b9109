import { Effect } from "effect"
import type { AgentNode as AgentNodeSchema } from "../../schemas/Dag.js"
import { AgentRunner } from "../agents/AgentRunner.js"
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

/** Agent steps run through the agent runner, the same code as the agents API's test-execute. */
export const AgentNode = defineNode(
  "agent",
  Effect.map(AgentRunner, (runner) => ({
    execute: (execution) =>
      runner.run({
        runId: execution.runId,
        tenantId: execution.tenantId,
        agentConfig: withSearchOverrides((execution.node as AgentNode).agent_config, execution.searchOverrides),
        context: execution.context,
        config: execution.config,
        isDryRun: execution.isDryRun,
        userId: execution.startedBy,
        emitToken: execution.emitToken,
        emitEvent: execution.emitEvent
      }).pipe(Effect.map(done))
  }))
)
