import { DurableDeferred } from "@effect/workflow"
import { Schema } from "effect"

/** What a person answered on a node's HITL request (or that the run was cancelled meanwhile). */
export const HitlOutcome = Schema.Struct({
  cancelled: Schema.Boolean,
  /** For approvals: whether the node may run. */
  approved: Schema.Boolean,
  response: Schema.Unknown
})
export type HitlOutcome = typeof HitlOutcome.Type

export const hitlDeferred = (nodeId: string) => DurableDeferred.make(`hitl:${nodeId}`, { success: HitlOutcome })

/** How a child run (call_aie) ended. */
export const ChildOutcome = Schema.Struct({
  status: Schema.Literal("completed", "failed", "cancelled"),
  output: Schema.Unknown,
  error: Schema.NullOr(Schema.String)
})
export type ChildOutcome = typeof ChildOutcome.Type

export const childDeferred = (nodeId: string) => DurableDeferred.make(`child:${nodeId}`, { success: ChildOutcome })
