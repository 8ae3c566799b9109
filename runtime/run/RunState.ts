import { asRecord } from "../../schemas/Records.js"
import type { RunStatus } from "../../schemas/RunLifecycle.js"
import type { RunContext } from "../dag/Context.js"
import type { NodeState } from "../dag/Plan.js"
import { Batch, type StepWrite } from "./Batch.js"
import { derivedStepId } from "./JournalRecord.js"
import type { ChildState, HitlState, Journaled, RunRecord, WaitState } from "./RunRecord.js"
import type { RunnableVersion } from "./Versions.js"

export type KernelNodeState = NodeState | "waiting"

/**
 * One activation's view of a run: rebuilt from the journal when the activation starts, then
 * kept in memory; the activation is the run's only writer while it lasts.
 */
export class RunState {
  readonly run: RunRecord
  readonly version: RunnableVersion
  readonly ids: ReadonlyArray<string>
  /** What planning sees: waiting nodes count as running (neither settled nor pending). */
  readonly planStates = new Map<string, NodeState>()
  readonly states = new Map<string, KernelNodeState>()
  readonly context: RunContext
  readonly nodesContext: Record<string, { output?: unknown; hitl?: unknown }>
  readonly completionOrder: Array<string> = []
  readonly stepIds = new Map<string, string>()
  readonly attempts = new Map<string, number>()
  readonly positions = new Map<string, number>()
  readonly hitl = new Map<string, HitlState>()
  readonly waits = new Map<string, WaitState>()
  readonly children = new Map<string, ChildState>()
  /** Writes that go with the next commit: skips, run transitions. */
  carry = new Batch()
  nextSeq: number
  /** Keys of the events the run's journal holds (one event per key and run). */
  readonly eventKeys: Set<string>
  nextPosition: number
  status: RunStatus
  wakeSeen: number
  failedError: string | undefined = undefined

  constructor(journaled: Journaled, version: RunnableVersion) {
    this.run = journaled.run
    this.version = version
    this.ids = version.nodes.map((n) => n.id)
    this.status = journaled.run.status
    this.nextSeq = journaled.last_seq + 1
    this.eventKeys = new Set(journaled.keys)
    this.wakeSeen = journaled.wake_seq
    this.nextPosition = journaled.steps.reduce((max, s) => Math.max(max, s.position + 1), 0)
    const chat = asRecord(journaled.run.input_params.chat)
    this.nodesContext = {}
    this.context = {
      workflow_input: journaled.run.input_params,
      nodes: this.nodesContext,
      chat: typeof chat.message === "string" ? { message: chat.message, history: Array.isArray(chat.history) ? chat.history : [] } : undefined,
      run: { id: journaled.run.id, trigger_type: journaled.run.trigger_type }
    }
    for (const h of journaled.hitl) {
      this.hitl.set(h.node_id, h)
      if (h.status === "completed") this.nodesContext[h.node_id] = { hitl: h.response }
    }
    for (const w of journaled.waits) this.waits.set(w.node_id, w)
    for (const c of journaled.children) this.children.set(c.node_id, c)
    for (const s of journaled.steps) {
      this.stepIds.set(s.node_id, s.id)
      this.attempts.set(s.node_id, s.attempt)
      this.positions.set(s.node_id, s.position)
      switch (s.status) {
        case "completed":
          this.complete(s.node_id, s.output)
          break
        case "skipped":
          this.settle(s.node_id, "skipped")
          break
        case "failed":
          this.settle(s.node_id, "failed")
          this.failedError ??= `Node '${s.node_id}' failed: ${s.error ?? "failed"}`
          break
        default:
          break
      }
    }
  }

  settle(nodeId: string, state: KernelNodeState) {
    this.states.set(nodeId, state)
    this.planStates.set(nodeId, state === "waiting" ? "running" : state)
  }

  /** The node finished with this output: later nodes see it, and it counts for the run's output. */
  complete(nodeId: string, output: unknown) {
    this.settle(nodeId, "completed")
    this.nodesContext[nodeId] = { ...this.nodesContext[nodeId], output }
    this.completionOrder.push(nodeId)
  }

  /** The journal row of a step that ends without running on: skipped, or cancelled in flight. */
  closedStep(
    node: { readonly id: string; readonly type: string; readonly name?: string | undefined },
    status: "skipped" | "cancelled",
    error?: string
  ): StepWrite {
    return {
      id: this.stepIdOf(node.id),
      node_id: node.id,
      node_type: node.type,
      node_name: node.name ?? null,
      status,
      attempt: this.attempts.get(node.id) ?? 1,
      position: this.positionOf(node.id),
      ...(error === undefined ? {} : { error }),
      started: false,
      finished: true
    }
  }

  count(state: KernelNodeState) {
    let n = 0
    for (const s of this.states.values()) if (s === state) n++
    return n
  }

  /**
   * Numbers a commit's events from the next free number and returns the first, leaving out each
   * event whose key the run already wrote (a node run again after a crash, a second pause on a node).
   */
  sequence(batch: Batch): number {
    const first = this.nextSeq
    const kept = batch.events.filter((e) => {
      if (e.key === undefined) return true
      if (this.eventKeys.has(e.key)) return false
      this.eventKeys.add(e.key)
      return true
    })
    batch.events.splice(0, batch.events.length, ...kept)
    this.nextSeq += kept.length
    return first
  }

  /** The step id of the node's current (or first) attempt: a new step's is derived from the run and the node (JournalRecord.ts). */
  stepIdOf(nodeId: string) {
    const existing = this.stepIds.get(nodeId)
    if (existing !== undefined) return existing
    const id = derivedStepId(this.run.id, nodeId)
    this.stepIds.set(nodeId, id)
    return id
  }

  positionOf(nodeId: string) {
    const existing = this.positions.get(nodeId)
    if (existing !== undefined) return existing
    const position = this.nextPosition++
    this.positions.set(nodeId, position)
    return position
  }

  /** Takes the carried writes, leaving an empty carry. */
  takeCarry() {
    const carry = this.carry
    this.carry = new Batch()
    return carry
  }

  /** A node whose waiting pauses the run is still unresolved. */
  hasOpenPause(except: string) {
    for (const [nodeId, h] of this.hitl) if (nodeId !== except && (h.status === "pending" || h.status === "claimed") && !this.settledNode(nodeId)) return true
    for (const [nodeId, w] of this.waits) if (nodeId !== except && w.kind !== "child" && !w.resolved && !this.settledNode(nodeId)) return true
    return false
  }

  settledNode(nodeId: string) {
    const s = this.states.get(nodeId)
    return s === "completed" || s === "skipped" || s === "failed"
  }
}
