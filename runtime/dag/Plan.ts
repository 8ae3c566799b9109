import type { Edge } from "../../schemas/Dag.js"
import { holds } from "./Conditions.js"
import type { RunContext } from "./Context.js"

export type NodeState = "pending" | "running" | "completed" | "failed" | "skipped"

export interface PlanStep {
  /** Pending nodes whose upstreams are settled and that have an active incoming edge. */
  readonly ready: ReadonlyArray<string>
  /** Pending nodes whose upstreams are settled but no incoming edge is active. */
  readonly skip: ReadonlyArray<string>
}

const settled = (s: NodeState | undefined) => s === "completed" || s === "skipped"

/**
 * One planning step (00-decisions section 3): a node runs when every upstream node has finished
 * or been skipped and at least one incoming edge is active (its source completed and its
 * condition, where there is one, holds); otherwise it is skipped. Applying the step until it is empty
 * propagates skips to the nodes that only skipped nodes feed.
 */
export const planStep = (
  nodeIds: ReadonlyArray<string>,
  edges: ReadonlyArray<Edge>,
  states: ReadonlyMap<string, NodeState>,
  context: RunContext
): PlanStep => {
  const ready: Array<string> = []
  const skip: Array<string> = []
  for (const id of nodeIds) {
    if ((states.get(id) ?? "pending") !== "pending") continue
    const incoming = edges.filter((e) => e.to === id)
    if (incoming.length === 0) {
      ready.push(id)
      continue
    }
    if (!incoming.every((e) => settled(states.get(e.from)))) continue
    const active = incoming.some((e) => states.get(e.from) === "completed" && (e.condition === undefined || holds(e.condition, context)))
    ;(active ? ready : skip).push(id)
  }
  return { ready, skip }
}

/** Applies skips until the plan only has nodes to run (or nothing). */
export const settleSkips = (
  nodeIds: ReadonlyArray<string>,
  edges: ReadonlyArray<Edge>,
  states: Map<string, NodeState>,
  context: RunContext
): { readonly ready: ReadonlyArray<string>; readonly skipped: ReadonlyArray<string> } => {
  const skipped: Array<string> = []
  for (;;) {
    const step = planStep(nodeIds, edges, states, context)
    if (step.skip.length === 0) return { ready: step.ready, skipped }
    for (const id of step.skip) {
      states.set(id, "skipped")
      skipped.push(id)
    }
  }
}

/** The output of the last completed node in completion order, when no outputs are declared. */
export const lastCompletedOutput = (
  completionOrder: ReadonlyArray<string>,
  context: RunContext
): unknown => {
  const last = completionOrder[completionOrder.length - 1]
  return last === undefined ? undefined : context.nodes[last]?.output
}
