import { Effect } from "effect"
import { defineNode, done, NodeFailure, waitFor } from "../../runtime/nodes/NodeType.js"
import type { NotifyUserNode } from "../../schemas/Dag.js"

/**
 * A node type added in one file: a test stand-in for `notify_user` in `park` mode. The step waits
 * durably for an external answer (resolved through the run module) or for its expiry
 * (`expires_after_seconds`, a timer that the recovery sweep fires, across restarts too), and
 * pauses the run meanwhile; it ends with what resolved the wait.
 */
export const ParkNode = defineNode(
  "notify_user",
  Effect.succeed({
    execute: (execution) =>
      Effect.sync(() => {
        const config = (execution.node as typeof NotifyUserNode.Type).notify_user_config
        const seconds = config.expires_after_seconds
        return waitFor({
          kind: "external",
          key: config.card_ref ?? execution.node.id,
          deadline: seconds === undefined ? undefined : new Date(Date.now() + seconds * 1000),
          pauses: true
        })
      }),
    resume: (_execution, resolution) =>
      resolution === null || resolution === undefined
        ? Effect.fail(new NodeFailure({ kind: "dependency", message: "the wait was resolved without an answer" }))
        : Effect.succeed(done({ output: { answer: resolution }, usage: {} }))
  })
)
