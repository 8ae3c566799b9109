import { Effect } from "effect"
import { isTerminal } from "../../schemas/RunLifecycle.js"
import { Batch } from "./Batch.js"
import { endRun } from "./Ending.js"
import { Journal } from "./Journal.js"
import { RunState } from "./RunState.js"
import { runnableVersion, Versions } from "./Versions.js"

/**
 * Records a run's cancellation from its journal (its activation, where there was one, already stopped): the
 * steps still running are cancelled, its open HITL requests closed, and the run ends `cancelled`
 * in one commit. Returns the children still going, which the caller cancels in turn.
 */
export const recordCancel = (runId: string, wake: (runId: string) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const versions = yield* Versions
    const loaded = yield* journal.load(runId)
    if (loaded === undefined) return { outcome: "missing" as const }
    if (isTerminal(loaded.run.status)) return { outcome: "terminal" as const, status: loaded.run.status }
    const version = (yield* versions.get(loaded.run.workflow_id, loaded.run.version)) ?? runnableVersion({}, {}, new Map())
    const state = new RunState(loaded, version)
    const batch = new Batch()
    batch.cancelHitl = true
    for (const step of loaded.steps) {
      if (step.status !== "running") continue
      const node = version.byId.get(step.node_id)
      batch.step({
        id: step.id,
        node_id: step.node_id,
        node_type: node?.type ?? "agent",
        node_name: node?.name ?? null,
        status: "cancelled",
        attempt: step.attempt,
        position: step.position,
        error: "Run cancelled",
        started: false,
        finished: true
      })
    }
    let hitl = 0
    const commit = (b: Batch) =>
      Effect.suspend(() => {
        return journal.commit(state.run, b, state.sequence(b)).pipe(Effect.tap((c) => Effect.sync(() => (hitl = c.hitlCancelled))))
      })
    yield* endRun(state, "cancelled", null, batch, commit, wake)
    return {
      outcome: "cancelled" as const,
      hitl_cancelled: hitl,
      children: loaded.children.filter((child) => !isTerminal(child.status)).map((child) => child.id)
    }
  })
