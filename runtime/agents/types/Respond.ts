import { Effect } from "effect"
import { addUsage, AgentKit, type AgentTypeRun, instructions, userTurn } from "../AgentKit.js"

/** respond: a direct answer from the instructions. Output `{text}`. */
export const respond = Effect.map(AgentKit, (kit): AgentTypeRun => (call) =>
  kit.complete(call, [{ role: "system", content: instructions(call) }, { role: "user", content: userTurn(call) }]).pipe(
    Effect.map((r) => ({ output: { text: r.text }, usage: addUsage({}, r) }))
  ))
