import { Context, Effect, Layer, Schema } from "effect"
import type { DagNode, NodeType } from "../../schemas/Dag.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"
import type { RunContext } from "../dag/Context.js"
import type { TokenUsage } from "../models/ChatModel.js"

/** Everything a node execution may read or emit. */
export interface NodeExecution {
  readonly runId: string
  readonly tenantId: string
  readonly stepId: string
  readonly node: DagNode
  readonly context: RunContext
  readonly config: WorkflowConfig
  readonly isDryRun: boolean
  readonly emitToken: (delta: string) => Effect.Effect<void>
}

export interface NodeResult {
  readonly output: unknown
  /** Tokens per model. */
  readonly usage: Readonly<Record<string, TokenUsage>>
}

export class NodeFailure extends Schema.TaggedError<NodeFailure>()("NodeFailure", {
  message: Schema.String
}) {}

export type NodeImplementation = (execution: NodeExecution) => Effect.Effect<NodeResult, NodeFailure>

/** The node types the runtime can execute; each type's layer registers itself here. */
export class NodeRegistry extends Context.Tag("NodeRegistry")<NodeRegistry, {
  readonly register: (type: NodeType, implementation: NodeImplementation) => Effect.Effect<void>
  readonly execute: NodeImplementation
}>() {
  static readonly layer = Layer.sync(NodeRegistry, () => {
    const implementations = new Map<string, NodeImplementation>()
    return {
      register: (type, implementation) => Effect.sync(() => void implementations.set(type, implementation)),
      execute: (execution) => {
        const implementation = implementations.get(execution.node.type)
        return implementation === undefined
          ? Effect.fail(new NodeFailure({ message: `No runtime for node type '${execution.node.type}'` }))
          : implementation(execution)
      }
    }
  })
}

/** A layer that registers one node type. */
export const nodeType = <E, R>(type: NodeType, make: Effect.Effect<NodeImplementation, E, R>) =>
  Layer.effectDiscard(Effect.flatMap(Effect.zip(NodeRegistry, make), ([registry, impl]) => registry.register(type, impl)))
