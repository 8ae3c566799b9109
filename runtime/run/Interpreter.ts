import { Cause, Data, Effect, Fiber, Queue } from "effect"
import { isTerminal } from "../../schemas/RunLifecycle.js"
import { settleSkips } from "../dag/Plan.js"
import type { NodeFailure } from "../nodes/NodeType.js"
import { type Parking, TenantAdmission } from "./Admission.js"
import { Batch } from "./Batch.js"
import { endRun } from "./Ending.js"
import { Journal } from "./Journal.js"
import { type NodeEnv, type Outcome, runNode } from "./NodeRun.js"
import { RunSpans } from "./Ports.js"
import { RunEvents } from "./RunEvents.js"
import type { Journaled, RunRecord } from "./RunRecord.js"
import { RunState } from "./RunState.js"
import { runnableVersion, Versions } from "./Versions.js"

/**
 * How an activation ended: the run ended or waits (`idle`), a wake-up came in meanwhile (`again`),
 * or it waits for its tenant's slot outside memory and is launched again when one frees (`parked`,
 * Admission).
 */
export type Activation = "idle" | "again" | "parked"

export interface ActivationControls {
  /** Takes a wake-up request that arrived while this activation was going on. */
  readonly takeWake: () => boolean
  /** Sends a wake-up to another run (a parent whose child ended). */
  readonly wake: (runId: string) => Effect.Effect<void>
  readonly startChild: (
    parent: RunState,
    workflowId: string,
    input: Record<string, unknown>,
    nodeId: string
  ) => Effect.Effect<string, NodeFailure>
  /** When given, a run past its tenant's waiting runs is parked, to come back through `relaunch`. */
  readonly parking?: Parking | undefined
}

const emptyVersion = runnableVersion({}, {}, new Map())

type Message = Outcome | { readonly tag: "defect"; readonly cause: Cause.Cause<unknown> }

/**
 * An activation started from a fresh run's record found, at its first commit, that the run had
 * moved on meanwhile (cancelled before it ever ran): nothing was written, and the run is read again.
 */
export class StaleStart extends Data.TaggedError("StaleStart")<{}> {}

const nothingJournaled = (run: RunRecord): Journaled => ({ run, last_seq: 0, wake_seq: 0, keys: [], steps: [], hitl: [], children: [], waits: [] })

/**
 * One activation of a run: rebuild the state from the journal (or, for a run created just now,
 * from its `fresh` record: its journal is empty), then run nodes as they become ready
 * (independent branches concurrently), committing each node's checkpoint; the run's end is
 * folded into its last node's commit. Returns when the run has ended or only waits remain.
 */
export const activate = (runId: string, controls: ActivationControls, fresh?: RunRecord | undefined) => {
  // Nodes forked when they run side by side (a sequential DAG forks none); whatever ends the
  // activation (a failure, a stale start that is retried at once) stops those still in flight.
  const fibers = new Set<Fiber.RuntimeFiber<unknown>>()
  return Effect.gen(function*() {
    const journal = yield* Journal
    const versions = yield* Versions
    const spans = yield* RunSpans
    const events = yield* RunEvents
    const admission = yield* TenantAdmission
    const loaded = fresh !== undefined ? nothingJournaled(fresh) : yield* journal.load(runId)
    if (loaded === undefined || isTerminal(loaded.run.status) || loaded.run.held) return "idle"
    const version = yield* versions.get(loaded.run.workflow_id, loaded.run.version)
    const lock = yield* Effect.makeSemaphore(1)
    const state = new RunState(loaded, version ?? emptyVersion)
    // A slot of the tenant's runs in flight for this activation; a run that must wait says so once on its stream.
    const admitted = yield* admission.enter(
      state.run.tenant_id,
      (limit) =>
        state.status !== "pending" || state.eventKeys.has("run_queued") ? Effect.void : Effect.suspend(() => {
          const batch = new Batch().event("run_queued", { status: "pending", reason: "tenant_runs_in_flight", limit }, "run_queued", undefined)
          return Effect.zipRight(journal.commit(state.run, batch, state.sequence(batch)), events.notify(runId))
        }),
      controls.parking
    )
    if (admitted === "parked") return "parked"
    /** Nodes running on forked fibers: while there are some, commits take turns (their event numbers stay in commit order). */
    let running = 0

    // Started from a fresh record, the first commit (which moves the run from pending) writes only if the run is still pending.
    let unconfirmed = fresh !== undefined
    const commitNow = (batch: Batch) =>
      Effect.suspend(() => {
        const full = state.takeCarry().absorb(batch)
        const first = state.sequence(full)
        const guarded = unconfirmed && full.runUpdate?.from !== undefined
        return journal.commit(state.run, full, first, guarded).pipe(
          Effect.flatMap((committed) => {
            if (!guarded) return Effect.succeed(committed)
            if (committed.status === undefined) return Effect.die(new StaleStart())
            unconfirmed = false
            return Effect.succeed(committed)
          }),
          Effect.tap(() => full.events.length > 0 ? events.notify(runId) : Effect.void)
        )
      })
    const commit = (batch: Batch) => Effect.uninterruptible(Effect.suspend(() => running === 0 ? commitNow(batch) : lock.withPermits(1)(commitNow(batch))))
    const finish = (status: "completed" | "failed", error: string | null, batch: Batch) =>
      Effect.suspend(() => {
        // A failed run leaves nothing open: steps in flight or waiting (in this activation or an earlier one) are cancelled, and its HITL requests.
        if (status === "failed") {
          batch.cancelHitl = true
          for (const nodeId of state.stepIds.keys()) {
            const node = state.version.byId.get(nodeId)
            const s = state.states.get(nodeId)
            if (node === undefined || batch.steps.has(nodeId) || s === "completed" || s === "skipped" || s === "failed") continue
            batch.step(state.closedStep(node, "cancelled", "The run failed"))
          }
        }
        return endRun(state, status, error, batch, commit, controls.wake).pipe(Effect.as("idle" as Activation))
      })

    if (version === undefined) return yield* finish("failed", `Version ${loaded.run.version} of the AI Employee is gone`, new Batch())
    if (version.problems.length > 0) {
      return yield* finish("failed", `Version ${loaded.run.version} cannot run: ${version.problems.join("; ")}`, new Batch())
    }
    if (state.status === "pending") {
      state.carry.run({ from: ["pending"], to: "running" })
      state.status = "running"
    }
    if (state.failedError !== undefined) return yield* finish("failed", state.failedError, new Batch())

    // Made only when nodes run side by side: a sequential DAG needs no queue or scope.
    let messages: Queue.Queue<Message> | undefined
    const env: NodeEnv = {
      state,
      commit,
      takeSpans: () => spans.take(runId),
      startChild: (workflowId, input, nodeId) => controls.startChild(state, workflowId, input, nodeId)
    }
    const launch = (nodeId: string, inbox: Queue.Queue<Message>) =>
      Effect.suspend(() => {
        state.settle(nodeId, "running")
        running += 1
        return Effect.fork(
          runNode(version.byId.get(nodeId)!, env).pipe(
            Effect.flatMap((outcome) => Queue.offer(inbox, outcome)),
            Effect.catchAllCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.void : Queue.offer(inbox, { tag: "defect", cause }))
          )
        ).pipe(Effect.map((fiber) => {
          fibers.add(fiber)
          fiber.addObserver(() => fibers.delete(fiber))
        }))
      })

    let received: Outcome | undefined = undefined
    for (;;) {
      const batch = new Batch()
      if (received !== undefined) {
        batch.absorb(received.batch)
        switch (received.tag) {
          case "completed":
            state.complete(received.nodeId, received.output)
            break
          case "skipped":
            state.settle(received.nodeId, "skipped")
            break
          case "waiting":
            state.settle(received.nodeId, "waiting")
            break
          case "failed": {
            // The first failure ends the run: the other nodes in flight are stopped and their steps cancelled.
            state.settle(received.nodeId, "failed")
            yield* Fiber.interruptAll(fibers)
            return yield* finish("failed", received.error, batch)
          }
        }
      }
      const { ready, skipped } = settleSkips(state.ids, version.edges, state.planStates, state.context)
      for (const nodeId of skipped) {
        state.states.set(nodeId, "skipped")
        batch.step(state.closedStep(version.byId.get(nodeId)!, "skipped"))
        batch.event("step_skipped", { node_id: nodeId }, `step_skipped:${nodeId}`, undefined)
      }
      if (ready.length === 0 && running === 0) {
        if (state.count("waiting") === 0) return yield* finish("completed", null, batch)
        batch.run({ dormant: state.status === "running", wake_done: state.wakeSeen })
        const committed = yield* commit(batch)
        const woken = (committed.wakeSeq ?? 0) > state.wakeSeen
        return (controls.takeWake() || woken ? "again" : "idle")
      }
      // A node's checkpoint rides on the next node's start commit when one starts now; else it is committed at once.
      if (ready.length > 0) state.carry.absorb(batch)
      else if (!batch.isEmpty) yield* commit(batch)
      if (ready.length === 1 && running === 0) {
        // A lone ready node runs on this fiber: a sequential DAG forks nothing.
        state.settle(ready[0], "running")
        received = yield* runNode(version.byId.get(ready[0])!, env)
        continue
      }
      messages ??= yield* Queue.unbounded<Message>()
      for (const nodeId of ready) yield* launch(nodeId, messages)
      const message = yield* Queue.take(messages)
      if (message.tag === "defect") return yield* Effect.failCause(message.cause)
      running -= 1
      received = message
    }
  }).pipe(
    Effect.ensuring(Effect.suspend(() => fibers.size === 0 ? Effect.void : Fiber.interruptAll(fibers))),
    Effect.withSpan("run.activate", { attributes: { "run.id": runId }, captureStackTrace: false })
  )
}
