import { Effect } from "effect"
import type { AgentNode as AgentNodeSchema } from "../../schemas/Dag.js"
import { renderDeep, renderText } from "../dag/Render.js"
import { ChatModel } from "../models/ChatModel.js"
import { chooseModel } from "../models/ModelSelection.js"
import { NodeFailure, nodeType } from "./NodeType.js"

type AgentNode = typeof AgentNodeSchema.Type

/** What the model is asked besides the instructions: the chat turn, else the node's inputs, else the run input. */
const userTurn = (node: AgentNode, context: Parameters<typeof renderText>[1]) => {
  if (context.chat?.message !== undefined) return context.chat.message
  const inputs = node.agent_config.inputs === undefined ? context.workflow_input : renderDeep(node.agent_config.inputs, context)
  return typeof inputs === "string" ? inputs : JSON.stringify(inputs)
}

/**
 * Agent steps. `respond` answers from its instructions on the chat-completions provider; the
 * other agent types plug into this seam with the agents work and fail clearly until then.
 */
export const AgentNodeLive = nodeType(
  "agent",
  Effect.gen(function*() {
    const model = yield* ChatModel
    return (execution) =>
      Effect.gen(function*() {
        const node = execution.node as AgentNode
        const c = node.agent_config
        if (c.agent_type !== "respond") {
          return yield* new NodeFailure({ message: `Agent type '${c.agent_type}' is not available yet; the step cannot run` })
        }
        const requested = typeof c.llm_config?.model === "string" ? c.llm_config.model : undefined
        const chosen = chooseModel(execution.config, model.models, requested)
        if (chosen === undefined) return yield* new NodeFailure({ message: "No LLM model is available for this AI Employee" })
        const result = yield* model.complete({
          model: chosen,
          messages: [
            { role: "system", content: renderText(c.system_prompt_template, execution.context) },
            { role: "user", content: userTurn(node, execution.context) }
          ],
          ...(typeof c.llm_config?.temperature === "number" ? { temperature: c.llm_config.temperature } : {}),
          onToken: execution.emitToken
        }).pipe(Effect.mapError((e) => new NodeFailure({ message: e.message })))
        return { output: { text: result.text }, usage: { [result.model]: result.usage } }
      }).pipe(Effect.withSpan("node.agent", { attributes: { node_id: execution.node.id } }))
  })
)
