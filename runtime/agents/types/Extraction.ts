import { Effect } from "effect"
import { NodeFailure } from "../../nodes/NodeType.js"
import { AgentKit, type AgentTypeRun, instructions, userTurn } from "../AgentKit.js"

/**
 * extraction: the object described by `type_config.schema`. A reply that does not match is
 * retried once with the problems named, then the step fails.
 */
export const extraction = Effect.map(AgentKit, (kit): AgentTypeRun => (call) =>
  Effect.gen(function*() {
    const schema = call.agentConfig.type_config?.schema
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
      return yield* new NodeFailure({ kind: "configuration", message: "extraction needs type_config.schema" })
    }
    const { usage, value } = yield* kit.completeJson(
      call,
      [{ role: "system", content: instructions(call) }, { role: "user", content: userTurn(call) }],
      { name: "extraction", schema: schema as Record<string, unknown> }
    )
    return { output: value, usage }
  }))
