import { Effect } from "effect"
import type { Condition } from "../../../schemas/Dag.js"
import { asRecord } from "../../../schemas/Records.js"
import { holds } from "../../dag/Conditions.js"
import { NodeFailure } from "../../nodes/NodeType.js"
import { AgentKit, type AgentTypeRun, instructions, userTurn } from "../AgentKit.js"

interface Intent {
  readonly name: string
  readonly description?: string
  readonly eligibility?: ReadonlyArray<Condition>
}

/**
 * intent_classification: one of the configured intents with a confidence; `eligible` says whether
 * the intent's eligibility rules hold on the run context. Output `{intent, confidence, eligible}`.
 * v0 predates eligibility rules (always eligible); v2 (pre-release) also returns the model's
 * `reason`.
 */
export const intentClassification = Effect.map(AgentKit, (kit) => (version: "v0" | "v1" | "v2"): AgentTypeRun => (call) =>
  Effect.gen(function*() {
    const intents = (call.agentConfig.type_config?.intents ?? []) as ReadonlyArray<Intent>
    if (!Array.isArray(intents) || intents.length === 0) {
      return yield* new NodeFailure({ kind: "configuration", message: "intent_classification needs type_config.intents" })
    }
    const names = intents.map((i) => i.name)
    const withReason = version === "v2"
    const schema = {
      type: "object",
      additionalProperties: false,
      required: withReason ? ["intent", "confidence", "reason"] : ["intent", "confidence"],
      properties: {
        intent: { type: "string", enum: names },
        confidence: { type: "number", minimum: 0, maximum: 1 },
        ...(withReason ? { reason: { type: "string" } } : {})
      }
    }
    const list = intents.map((i) => `- ${i.name}${i.description !== undefined ? `: ${i.description}` : ""}`).join("\n")
    const fields = withReason ? `{"intent", "confidence", "reason"}` : `{"intent", "confidence"}`
    const { usage, value } = yield* kit.completeJson(call, [
      { role: "system", content: `${instructions(call)}\n\nChoose exactly one intent:\n${list}\nAnswer as JSON ${fields}.` },
      { role: "user", content: userTurn(call) }
    ], { name: "intent", schema })
    const answer = asRecord(value)
    const intent = intents.find((i) => i.name === answer.intent)!
    const eligible = version === "v0" || (intent.eligibility ?? []).every((rule: Condition) => holds(rule, call.context))
    const confidence = typeof answer.confidence === "number" ? answer.confidence : 0
    const output = { intent: intent.name, confidence, eligible }
    return { output: withReason ? { ...output, reason: String(answer.reason) } : output, usage }
  }))
