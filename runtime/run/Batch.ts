import type { CompactSpan } from "../../otel/CompactSpan.js"
import { type FailureKind, illegalSources, type RunEventType, type RunStatus, type StepStatus } from "../../schemas/RunLifecycle.js"
import type { TokenUsage } from "../models/ChatModel.js"

export interface StepWrite {
  readonly id: string
  readonly node_id: string
  readonly node_type: string
  readonly node_name: string | null
  readonly status: StepStatus
  readonly attempt: number
  readonly position: number
  readonly output?: unknown
  readonly error?: string | null
  /** A failed step's classification (the node type's failures): whether a retry can help, and its reason code. */
  readonly error_kind?: FailureKind
  readonly error_code?: string
  readonly usage?: Readonly<Record<string, TokenUsage>>
  /** Stamp started_at (a step that begins) or finished_at (a step that ends). */
  readonly started: boolean
  readonly finished: boolean
}

export interface EventWrite {
  readonly type: RunEventType
  readonly payload: Record<string, unknown>
  /**
   * One event per key and run: a node run again after a crash does not repeat it (the kernel
   * leaves out an event whose key the run's journal holds). Undefined: an event that is never
   * written twice anyway (streamed text and tool calls of one execution).
   */
  readonly key: string | undefined
  /** The span the event happened in (its log record hangs there); undefined: the run's root. */
  readonly spanId: string | undefined
}

/** Spans of the run ended together: one row, keyed by the first span's id (otel/CompactSpan.ts). */
export interface SpanWrite {
  readonly span_id: string
  readonly scope: string
  readonly start: string
  readonly spans: ReadonlyArray<CompactSpan>
}

export interface RunWrite {
  /** Applied only from these statuses (the state machine's table). */
  readonly from?: ReadonlyArray<RunStatus>
  readonly to?: RunStatus
  readonly output?: unknown
  readonly named_outputs?: Record<string, unknown>
  readonly error?: string
  /** The activation stops with nothing running: the recovery sweep leaves the run alone until woken. */
  readonly dormant?: boolean
  /** Wake requests up to this one were seen by the activation. */
  readonly wake_done?: number
}

export interface HitlWrite {
  readonly id: string
  readonly workflow_id: string
  readonly node_id: string
  readonly type: string
  readonly prompt: string
  readonly choices: ReadonlyArray<string> | null
  readonly form_schema: unknown
  readonly assignee: unknown
}

export interface WaitWrite {
  readonly node_id: string
  readonly kind: string
  readonly key: string
  readonly deadline: Date | null
}

/**
 * What one journal commit writes: step rows, events (with their log records), spans, the run row,
 * HITL requests, waits and wake-ups of other runs. It all goes to PostgreSQL as one statement.
 */
export class Batch {
  readonly steps = new Map<string, StepWrite>()
  readonly events: Array<EventWrite> = []
  readonly spans: Array<SpanWrite> = []
  readonly hitl: Array<HitlWrite> = []
  readonly waits: Array<WaitWrite> = []
  readonly wake: Array<string> = []
  runUpdate: RunWrite | undefined = undefined
  /** Close the run's open HITL requests (a cancelled run). */
  cancelHitl = false

  step(write: StepWrite) {
    this.steps.set(write.node_id, write)
    return this
  }

  event(type: RunEventType, payload: Record<string, unknown>, key: string | undefined, spanId: string | undefined) {
    this.events.push({ type, payload, key, spanId })
    return this
  }

  /** Successive transitions compose: the first one's `from` guards the statement, the last one's `to` is written. */
  run(update: RunWrite) {
    // A status move the lifecycle's table does not allow is never written: it is a bug of the caller.
    if (update.to !== undefined) {
      const illegal = illegalSources(update.from ?? [], update.to)
      if (update.from === undefined || update.from.length === 0 || illegal.length > 0) {
        throw new Error(`A run may not move from ${(update.from ?? []).join("/") || "any status"} to ${update.to} (schemas/RunLifecycle.ts)`)
      }
    }
    const from = this.runUpdate?.from ?? update.from
    this.runUpdate = { ...this.runUpdate, ...update, ...(from !== undefined ? { from } : {}) }
    return this
  }

  /** Moves everything of `other` into this batch. */
  absorb(other: Batch) {
    other.steps.forEach((s) => this.steps.set(s.node_id, s))
    this.events.push(...other.events)
    this.spans.push(...other.spans)
    this.hitl.push(...other.hitl)
    this.waits.push(...other.waits)
    this.wake.push(...other.wake)
    if (other.runUpdate !== undefined) this.run(other.runUpdate)
    this.cancelHitl ||= other.cancelHitl
    return this
  }

  get isEmpty() {
    return this.steps.size === 0 && this.events.length === 0 && this.spans.length === 0 && this.hitl.length === 0 &&
      this.waits.length === 0 && this.wake.length === 0 && this.runUpdate === undefined && !this.cancelHitl
  }
}
