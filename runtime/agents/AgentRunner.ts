import { Context, Effect, Layer } from "effect"
import { RUN_ID } from "../../otel/RunTraceIds.js"
import { NodeFailure, type NodeResult } from "../nodes/NodeType.js"
import { type AgentCall, AgentKit, type AgentTypeRun } from "./AgentKit.js"
import { type AgentType, lookupAgentType } from "./Catalog.js"
import { withPresetDefaults } from "./Presets.js"
import { custom } from "./types/Custom.js"
import { extraction } from "./types/Extraction.js"
import { intentClassification } from "./types/IntentClassification.js"
import { respond } from "./types/Respond.js"
import { ruleValidation } from "./types/RuleValidation.js"
import { searchRespond } from "./types/SearchRespond.js"

export type { AgentCall, AgentConfig } from "./AgentKit.js"

/**
 * The agent types behind one seam: workflow agent nodes and the agents API's test-execute run
 * exactly this code. A step's preset fills in its defaults before the type runs.
 */
export class AgentRunner extends Context.Tag("AgentRunner")<AgentRunner, {
  readonly run: (call: AgentCall) => Effect.Effect<NodeResult, NodeFailure>
}>() {
  static readonly layer = Layer.effect(
    AgentRunner,
    Effect.gen(function*() {
      const classify = yield* intentClassification
      /** Each type version that can run; a node runs the version it pins. */
      const versions: Record<AgentType, Record<string, AgentTypeRun>> = {
        respond: { v1: yield* respond },
        intent_classification: { v0: classify("v0"), v1: classify("v1"), v2: classify("v2") },
        extraction: { v1: yield* extraction },
        search_respond: { v1: yield* searchRespond },
        rule_validation: { v1: yield* ruleValidation },
        custom: { v1: yield* custom }
      }
      const run = (call: AgentCall) => {
        const agentConfig = withPresetDefaults(call.agentConfig)
        const { agent_type: type, type_version: version } = agentConfig
        const entry = lookupAgentType(type, version)
        const implementation = entry === undefined ? undefined : versions[entry.type][version]
        if (entry === undefined || implementation === undefined) {
          return Effect.fail(new NodeFailure({ kind: "unavailable", message: `Agent type ${type} ${version} does not exist` }))
        }
        if (entry.status === "deleted" || entry.status === "broken") {
          return Effect.fail(new NodeFailure({ kind: "unavailable", message: `Agent type ${type} ${version} is ${entry.status} and cannot run` }))
        }
        return implementation({ ...call, agentConfig })
      }
      return {
        run: (call) =>
          run(call).pipe(Effect.withSpan("agent.run", {
            attributes: {
              ...(call.runId !== undefined ? { [RUN_ID]: call.runId } : {}),
              "agent.type": call.agentConfig.agent_type,
              "agent.type_version": call.agentConfig.type_version,
              ...(call.agentConfig.preset !== undefined ? { "agent.preset": call.agentConfig.preset } : {})
            },
            captureStackTrace: false
          }))
      }
    })
  ).pipe(Layer.provideMerge(AgentKit.layer))
}
