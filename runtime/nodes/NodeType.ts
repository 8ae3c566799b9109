import { Context, Effect, Layer, Schema } from "effect"
import type { DagNode, NodeType as NodeTypeName } from "../../schemas/Dag.js"
import { FailureKind, type RunEventType } from "../../schemas/RunLifecycle.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"
import type { RunContext } from "../dag/Context.js"
import type { TokenUsage } from "../models/ChatModel.js"

/** Everything a node execution may read or emit. */
export interface NodeExecution {
  readonly runId: string
  readonly tenantId: string
  readonly workflowId: string
  readonly stepId: string
  readonly node: DagNode
  readonly context: RunContext
  readonly config: WorkflowConfig
  readonly isDryRun: boolean
  readonly triggerType: string
  /** The user who started the run (their OAuth connections serve its tool calls), if anyone did. */
  readonly startedBy: string | null
  /** Knowledge-search settings the run overrides for itself (an evaluation's search_config). */
  readonly searchOverrides: {
    readonly top_k?: number | undefined
    readonly min_score?: number | undefined
    readonly knowledge_base_ids?: ReadonlyArray<string> | undefined
  } | null
  readonly emitToken: (delta: string) => Effect.Effect<void>
  /** A step event other than text (`tool_called`), on the run's stream in order with the tokens. */
  readonly emitEvent: (type: RunEventType, payload: Record<string, unknown>) => Effect.Effect<void>
  /**
   * Creates (once: the id is derived from the run and node) a child run of another AI Employee's
   * active version; the caller waits for it with `{kind: "child", key: <child run id>}`.
   */
  readonly startChild: (workflowId: string, input: Record<string, unknown>) => Effect.Effect<string, NodeFailure>
}

export interface NodeResult {
  readonly output: unknown
  /** Tokens per model. */
  readonly usage: Readonly<Record<string, TokenUsage>>
}

/**
 * What a node waits for. `child`: a child run ends (resolution {status, output, error}); `timer`:
 * `deadline` passes (resolution {timeout: true}); `external`: someone resolves it through the run
 * module (a nudge response). A pausing wait moves the run to `paused` until it is resolved.
 */
export interface WaitFor {
  readonly kind: "child" | "timer" | "external"
  readonly key: string
  readonly deadline?: Date | undefined
  readonly pauses: boolean
}

export type NodeOutcome =
  | { readonly _tag: "Done"; readonly result: NodeResult }
  | { readonly _tag: "Wait"; readonly wait: WaitFor }

export const done = (result: NodeResult): NodeOutcome => ({ _tag: "Done", result })
export const waitFor = (wait: WaitFor): NodeOutcome => ({ _tag: "Wait", wait })

/** A node that did not produce its output, with why (`kind`: whether trying again can help). */
export class NodeFailure extends Schema.TaggedError<NodeFailure>()("NodeFailure", {
  message: Schema.String,
  kind: FailureKind
}) {}

/**
 * One node type: `execute` runs it; a node that answered `Wait` is `resume`d with the wait's
 * resolution once it is resolved (after a restart too: the wait is journaled).
 */
export interface NodeImplementation {
  readonly execute: (execution: NodeExecution) => Effect.Effect<NodeOutcome, NodeFailure>
  readonly resume?: (execution: NodeExecution, resolution: unknown) => Effect.Effect<NodeOutcome, NodeFailure>
}

/** A node type's definition: its name and how to build its implementation. */
export interface NodeDefinition<R> {
  readonly type: NodeTypeName
  readonly make: Effect.Effect<NodeImplementation, never, R>
}

export const defineNode = <R>(type: NodeTypeName, make: Effect.Effect<NodeImplementation, never, R>): NodeDefinition<R> => ({
  type,
  make
})

/**
 * Node definitions added to (or replacing) the built-in ones, read by the kernel's registry and
 * by the publish check (a type defined here is available). Empty in the product; a test provides
 * its own node types through it.
 */
export class ExtraNodeTypes extends Context.Reference<ExtraNodeTypes>()("ExtraNodeTypes", {
  defaultValue: (): ReadonlyArray<NodeDefinition<never>> => []
}) {}

/** The node types the runtime can execute. */
export class NodeRegistry extends Context.Tag("NodeRegistry")<NodeRegistry, {
  readonly get: (type: string) => NodeImplementation | undefined
}>() {
  /** Later definitions of a type replace earlier ones (tests swap one in). */
  static readonly layer = <R>(definitions: ReadonlyArray<NodeDefinition<R>>) =>
    Layer.effect(
      NodeRegistry,
      Effect.gen(function*() {
        const implementations = new Map<string, NodeImplementation>()
        for (const definition of definitions) implementations.set(definition.type, yield* definition.make)
        return { get: (type) => implementations.get(type) }
      })
    )
}
