import { Effect } from "effect"
import { defineNode, done, waitFor } from "../../runtime/nodes/NodeType.js"
import { NotifyUserNode } from "../../schemas/Dag.js"

/**
 * A node type added in one file: a test stand-in for `notify_user` in `park` mode. The step waits
 * durably for an external answer (resolved through the run module) or for its expiry
 * (`expires_after_seconds`, a timer that the recovery sweep fires, across restarts too), and
 * pauses the run meanwhile; it ends with what resolved the wait.
 */
export const ParkNode = defineNode({
  type: "notify_user",
  schema: NotifyUserNode,
  failures: { ANSWER_MISSING: "dependency" },
  make: (fail) =>
    Effect.succeed({
      execute: (execution, node) =>
        Effect.sync(() => {
          const config = node.notify_user_config
          const seconds = config.expires_after_seconds
          return waitFor({
            kind: "external",
            key: config.card_ref ?? execution.node.id,
            deadline: seconds === undefined ? undefined : new Date(Date.now() + seconds * 1000),
            pauses: true
          })
        }),
      resume: (_execution, _node, resolution) =>
        resolution === null || resolution === undefined
          ? Effect.fail(fail("ANSWER_MISSING", "the wait was resolved without an answer"))
          : Effect.succeed(done({ output: { answer: resolution }, usage: {} }))
    })
})
