import { Effect } from "effect"
import type { NodeType } from "../../schemas/Dag.js"
import { defineNode, NodeFailure } from "./NodeType.js"

/** Node types whose runtime arrives with a later issue; publish refuses them (NODE_TYPE_UNAVAILABLE). */
export const UNAVAILABLE_NODE_TYPES: ReadonlyMap<NodeType, string> = new Map<NodeType, string>([])

/** The unavailable types, less those that `extra` definitions provide. */
export const unavailableNodeTypes = (extra: ReadonlyArray<{ readonly type: string }>): ReadonlyMap<string, string> =>
  new Map([...UNAVAILABLE_NODE_TYPES].filter(([type]) => !extra.some((d) => d.type === type)))

/** Present, and failing their step clearly, should a version saved before the publish check reach them. */
export const UnavailableNodes = [...UNAVAILABLE_NODE_TYPES].map(([type, issue]) =>
  defineNode(
    type,
    Effect.succeed({
      execute: () => Effect.fail(new NodeFailure({ kind: "unavailable", message: `The ${type} node is not available yet (${issue}); the step cannot run` }))
    })
  )
)
