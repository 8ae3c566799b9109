import { Effect } from "effect"
import { addUsage, AgentKit, type AgentTypeRun, conversation, instructions } from "../AgentKit.js"

/** respond: a direct answer from the instructions (in chat, to the whole conversation). Output `{text}`. */
export const respond = Effect.map(
  AgentKit,
  (kit): AgentTypeRun => (call) =>
    kit.complete(call, [{ role: "system", content: instructions(call) }, ...conversation(call)]).pipe(
      Effect.map((r) => ({ output: { text: r.text }, usage: addUsage({}, r) }))
    )
)
