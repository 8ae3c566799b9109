import { Context, Effect, Layer } from "effect"
import type { NodeEnvelope } from "../../schemas/Dag.js"
import type { RunEventType } from "../../schemas/RunLifecycle.js"
import type { RunContext } from "../dag/Context.js"
import type { RunRecord } from "./RunRecord.js"

/** How a run ended, with what a follower needs to make sense of it. */
export interface RunEnding {
  readonly run: RunRecord
  readonly status: "completed" | "failed" | "cancelled"
  readonly error: string | null
  readonly output: unknown
  readonly namedOutputs: Record<string, unknown>
  /** The version's nodes, the order they completed in, and the run context at the end. */
  readonly nodes: ReadonlyArray<NodeEnvelope>
  readonly completionOrder: ReadonlyArray<string>
  readonly context: RunContext
}

/** What a follower adds to the run's end: events in the same commit, and work once it is committed. */
export interface EndFollowUp {
  readonly events: ReadonlyArray<{ readonly type: RunEventType; readonly payload: Record<string, unknown>; readonly key: string }>
  readonly afterCommit: Effect.Effect<void>
}

export const noFollowUp: EndFollowUp = { events: [], afterCommit: Effect.void }

/**
 * Called inside the transaction that ends a run (completed, failed or cancelled), so that what a
 * follower writes (chat's assistant message) commits with the run's end or not at all. It runs in
 * a savepoint: a failing follower is logged and the run ends without its writes.
 */
export class RunEndHooks extends Context.Tag("RunEndHooks")<RunEndHooks, {
  readonly ended: (ending: RunEnding) => Effect.Effect<EndFollowUp>
}>() {
  static readonly none = Layer.succeed(RunEndHooks, { ended: () => Effect.succeed(noFollowUp) })
}
