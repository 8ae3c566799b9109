import { Cause, Effect } from "effect"
import { finalEventOf } from "../../schemas/RunLifecycle.js"
import { lastCompletedOutput } from "../dag/Plan.js"
import { renderString } from "../dag/Render.js"
import type { Batch } from "./Batch.js"
import { type Committed, Journal } from "./Journal.js"
import { RunSpans } from "./Ports.js"
import { type EndFollowUp, noFollowUp, RunEndHooks, type RunEnding } from "./RunEndHooks.js"
import { RunEvents } from "./RunEvents.js"
import type { RunState } from "./RunState.js"

export type EndStatus = RunEnding["status"]

const FROM: Record<EndStatus, ReadonlyArray<"pending" | "running" | "paused">> = {
  completed: ["pending", "running"],
  failed: ["pending", "running", "paused"],
  cancelled: ["pending", "running", "paused"]
}

/** The run's outputs at its end: the declared outputs rendered, else the last completed node's output. */
export const outputsOf = (state: RunState) => {
  const named = Object.fromEntries(state.version.outputs.map((o) => [o.name, renderString(o.value, state.context) ?? null]))
  const output = state.version.outputs.length > 0 ? named : lastCompletedOutput(state.completionOrder, state.context) ?? null
  return { named, output }
}

/**
 * Ends a run in one commit with `batch` (the last node's checkpoint, when there is one): the run
 * row, the final event, the parent's wake-up and, inside the same transaction, what the end hooks
 * write. What the hooks need once it is committed, and the parent's wake-up, run afterwards.
 */
export const endRun = (
  state: RunState,
  status: EndStatus,
  error: string | null,
  batch: Batch,
  commit: (batch: Batch) => Effect.Effect<Committed>,
  wake: (runId: string) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    const hooks = yield* RunEndHooks
    const journal = yield* Journal
    const spans = yield* RunSpans
    const events = yield* RunEvents
    const { named, output } = status === "completed" ? outputsOf(state) : { named: {}, output: null }
    batch.run({
      from: FROM[status],
      to: status,
      ...(status === "completed" ? { output, named_outputs: named } : {}),
      ...(error !== null ? { error } : {})
    })
    if (state.run.parent_run_id !== null) batch.wake.push(state.run.parent_run_id)
    const ending: RunEnding = {
      run: state.run,
      status,
      error,
      output,
      namedOutputs: named,
      nodes: state.version.nodes,
      completionOrder: state.completionOrder,
      context: state.context
    }
    // What followers add goes before the final event: streams stop at run_completed / run_failed / run_cancelled.
    const followed = (follow: EndFollowUp) => {
      for (const e of follow.events) batch.event(e.type, e.payload, e.key, undefined)
      batch.event(finalEventOf(status), status === "failed" ? { status, error } : { status }, finalEventOf(status), undefined)
      return commit(batch).pipe(Effect.as(follow))
    }
    const follow = state.run.session_id === null
      ? yield* followed(noFollowUp)
      : yield* journal.withTransaction(
        hooks.ended(ending).pipe(
          journal.withTransaction,
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.failCause(cause)
              : Effect.logError("A run-end follower failed; the run ends without its writes", cause).pipe(Effect.as(noFollowUp))
          ),
          Effect.flatMap(followed)
        )
      )
    state.status = status
    yield* events.notify(state.run.id)
    yield* follow.afterCommit
    if (state.run.parent_run_id !== null) yield* wake(state.run.parent_run_id)
    yield* spans.ended(state.run.id)
  })
