import { Context, Effect, Either, Layer, type ParseResult, Schema } from "effect"
import type { DagWarning, NodeEnvelope } from "../../schemas/Dag.js"
import { FailureKind, type RunEventType } from "../../schemas/RunLifecycle.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"
import type { RunContext } from "../dag/Context.js"
import type { NodeCheckContext, NodeRefs } from "../dag/DagFacts.js"
import type { TokenUsage } from "../models/ChatModel.js"

/** Everything a node execution may read or emit. */
export interface NodeExecution {
  readonly runId: string
  readonly tenantId: string
  readonly workflowId: string
  readonly stepId: string
  /** The node's shared fields; its implementation gets the node as its own type's schema decoded it. */
  readonly node: NodeEnvelope
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

/**
 * A node that did not produce its output, with why: `kind` says whether trying again can help,
 * `code` (a node type's own reason, from its `failures` table) says what went wrong.
 */
export class NodeFailure extends Schema.TaggedError<NodeFailure>()("NodeFailure", {
  message: Schema.String,
  kind: FailureKind,
  code: Schema.optional(Schema.String)
}) {}

/** How the kernel runs a node of some type (its node arrives in `execution.node`). */
export interface NodeImplementation {
  readonly execute: (execution: NodeExecution) => Effect.Effect<NodeOutcome, NodeFailure>
  readonly resume?: (execution: NodeExecution, resolution: unknown) => Effect.Effect<NodeOutcome, NodeFailure>
}

/**
 * What the platform knows of a node type without running it: how its nodes decode, what publish
 * checks on them, what they refer to, and how its failures classify. Read by the publish check
 * and by the kernel when it loads a version.
 */
export interface NodeContract {
  readonly type: string
  readonly decode: (raw: unknown) => Either.Either<NodeEnvelope, ParseResult.ParseError>
  readonly check: (node: NodeEnvelope, context: NodeCheckContext) => ReadonlyArray<DagWarning>
  readonly refs: (node: NodeEnvelope) => NodeRefs
  /** Whether a step of this type calls a language model (publish then needs one enabled). */
  readonly needsModel: (node: NodeEnvelope) => boolean
  readonly rereadsContext: boolean
  /** Set when the type cannot run yet: publish refuses it (NODE_TYPE_UNAVAILABLE) with this reason. */
  readonly unavailable: string | undefined
  readonly failures: Readonly<Record<string, FailureKind>>
}

/** A node type: its contract and how to build its implementation. */
export interface NodeDefinition<R> extends NodeContract {
  readonly make: Effect.Effect<NodeImplementation, never, R>
}

/** A node type's implementation, given its node as its own schema decoded it. */
export interface TypedNodeImplementation<N> {
  readonly execute: (execution: NodeExecution, node: N) => Effect.Effect<NodeOutcome, NodeFailure>
  readonly resume?: (execution: NodeExecution, node: N, resolution: unknown) => Effect.Effect<NodeOutcome, NodeFailure>
}

/**
 * Everything about one node type, written in its one file: `schema` (the whole node; for a
 * built-in type, the contract's schema from `schemas/Dag.ts`, which the console and OpenAPI
 * publish), the publish `check`, the `refs` it resolves beforehand, its `failures` (reason code ->
 * kind, so whether a retry can help) and `make`, which gets `fail` to raise those failures.
 */
export interface NodeSpec<N extends NodeEnvelope, I, R, F extends string> {
  readonly type: string
  readonly schema: Schema.Schema<N, I>
  readonly failures: { readonly [code in F]: FailureKind }
  readonly check?: (node: N, context: NodeCheckContext) => ReadonlyArray<DagWarning>
  readonly refs?: (node: N) => NodeRefs
  readonly needsModel?: (node: N) => boolean
  readonly rereadsContext?: boolean
  readonly unavailable?: string
  readonly make: (fail: (code: F, message: string) => NodeFailure) => Effect.Effect<TypedNodeImplementation<N>, never, R>
}

export const defineNode = <N extends NodeEnvelope, I, R, F extends string = never>(spec: NodeSpec<N, I, R, F>): NodeDefinition<R> => {
  const decodeEither = Schema.decodeUnknownEither(spec.schema)
  // The nodes this type decoded, so that checks and executions get them back typed.
  const decoded = new WeakMap<NodeEnvelope, N>()
  const decode = (raw: unknown) =>
    Either.map(decodeEither(raw), (node) => {
      decoded.set(node, node)
      return node
    })
  const typed = (node: NodeEnvelope): N | undefined => decoded.get(node) ?? Either.getOrUndefined(decodeEither(node))
  const failures: Readonly<Record<string, FailureKind>> = spec.failures
  const fail = (code: F, message: string) => new NodeFailure({ code, kind: spec.failures[code], message })
  const misread = (execution: NodeExecution) =>
    Effect.fail(new NodeFailure({ kind: "configuration", message: `Node '${execution.node.id}' does not match the ${spec.type} schema` }))
  return {
    type: spec.type,
    decode,
    check: (node, context) => {
      const n = typed(node)
      return n === undefined || spec.check === undefined ? [] : spec.check(n, context)
    },
    refs: (node) => {
      const n = typed(node)
      return n === undefined || spec.refs === undefined ? {} : spec.refs(n)
    },
    needsModel: (node) => {
      const n = typed(node)
      return n !== undefined && spec.needsModel !== undefined && spec.needsModel(n)
    },
    rereadsContext: spec.rereadsContext ?? false,
    unavailable: spec.unavailable,
    failures,
    make: Effect.map(spec.make(fail), (impl): NodeImplementation => {
      const resume = impl.resume
      return {
        execute: (execution) => {
          const node = typed(execution.node)
          return node === undefined ? misread(execution) : impl.execute(execution, node)
        },
        ...(resume === undefined ? {} : {
          resume: (execution: NodeExecution, resolution: unknown) => {
            const node = typed(execution.node)
            return node === undefined ? misread(execution) : resume(execution, node, resolution)
          }
        })
      }
    })
  }
}

/**
 * Node definitions added to (or replacing) the built-in ones, read by the kernel's registry and
 * by the publish check (a type defined here is available). Empty in the product; a test provides
 * its own node types through it.
 */
export class ExtraNodeTypes extends Context.Reference<ExtraNodeTypes>()("ExtraNodeTypes", {
  defaultValue: (): ReadonlyArray<NodeDefinition<never>> => []
}) {}

/** The definitions in force: later ones of a type replace earlier ones (tests swap one in). */
export const nodeContracts = (definitions: ReadonlyArray<NodeContract>): ReadonlyMap<string, NodeContract> => new Map(definitions.map((d) => [d.type, d]))

/** The node types the runtime can execute. */
export class NodeRegistry extends Context.Tag("NodeRegistry")<NodeRegistry, {
  readonly get: (type: string) => NodeImplementation | undefined
  readonly contract: (type: string) => NodeContract | undefined
}>() {
  static readonly layer = <R>(definitions: ReadonlyArray<NodeDefinition<R>>) =>
    Layer.effect(
      NodeRegistry,
      Effect.gen(function*() {
        const byType = new Map(definitions.map((d) => [d.type, d]))
        const implementations = new Map<string, NodeImplementation>()
        for (const definition of byType.values()) implementations.set(definition.type, yield* definition.make)
        return { get: (type) => implementations.get(type), contract: (type) => byType.get(type) }
      })
    )
}
