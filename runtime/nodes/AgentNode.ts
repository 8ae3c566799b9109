import { Effect } from "effect"
import type { AgentNode as AgentNodeSchema } from "../../schemas/Dag.js"
import { AgentRunner } from "../agents/AgentRunner.js"
import { defineNode, done } from "./NodeType.js"

type AgentNode = typeof AgentNodeSchema.Type

/** Agent steps run through the agent runner, the same code as the agents API's test-execute. */
export const AgentNode = defineNode(
  "agent",
  Effect.map(AgentRunner, (runner) => ({
    execute: (execution) =>
      runner.run({
        runId: execution.runId,
        tenantId: execution.tenantId,
        agentConfig: (execution.node as AgentNode).agent_config,
        context: execution.context,
        config: execution.config,
        isDryRun: execution.isDryRun,
        userId: execution.startedBy,
        emitToken: execution.emitToken,
        emitEvent: execution.emitEvent
      }).pipe(Effect.map(done))
  }))
)
