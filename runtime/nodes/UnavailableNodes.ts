import { Effect, Layer } from "effect"
import type { NodeType } from "../../schemas/Dag.js"
import { NodeFailure, nodeType } from "./NodeType.js"

const unavailable = (type: NodeType, issue: string) =>
  nodeType(
    type,
    Effect.succeed(() =>
      Effect.fail(new NodeFailure({ message: `The ${type} node is not available yet (${issue}); the step cannot run` }))
    )
  )

/** Node types whose runtime arrives with a later issue: present, and failing their step clearly. */
export const UnavailableNodesLive = Layer.mergeAll(
  unavailable("send_email", "email delivery comes with the integrations work"),
  unavailable("notify_user", "nudge cards come with the nudges work"),
  unavailable("live_agent_transfer", "live agent transfer comes with ticketing"),
  unavailable("schedule", "workflow-managed schedules come with the triggers work")
)
