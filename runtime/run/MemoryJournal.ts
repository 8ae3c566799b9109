import { Effect, Layer } from "effect"
import { isFinalEvent, isTerminal, type RunStatus, type StepStatus } from "../../schemas/RunLifecycle.js"
import type { Batch } from "./Batch.js"
import { type Committed, Journal, type JournalRun } from "./Journal.js"
import { RunEvents, type StoredEvent } from "./RunEvents.js"
import type { Journaled, RunRecord } from "./RunRecord.js"

interface StepRow {
  readonly id: string
  readonly node_id: string
  readonly node_type: string
  readonly status: StepStatus
  readonly output: unknown
  readonly error: string | null
  readonly attempt: number
  readonly position: number
  readonly started: boolean
  readonly finished: boolean
}

interface HitlRow {
  readonly id: string
  readonly node_id: string
  status: "pending" | "claimed" | "completed" | "cancelled"
  response: unknown
}

interface WaitRow {
  readonly node_id: string
  readonly kind: "child" | "timer" | "external"
  readonly key: string
  resolution: unknown
  resolved: boolean
}

/** A run row as the journal keeps it: the record the kernel reads and the columns only commits touch. */
export interface MemoryRun {
  record: RunRecord
  output: unknown
  named_outputs: Record<string, unknown>
  wake_seq: number
  wake_done: number
  dormant: boolean
  started: boolean
  finished: boolean
}

interface RunRows {
  readonly run: MemoryRun
  readonly steps: Map<string, StepRow>
  readonly events: Array<StoredEvent & { readonly key: string | undefined }>
  readonly spans: Set<string>
  readonly hitl: Map<string, HitlRow>
  readonly waits: Map<string, WaitRow>
}

/**
 * The run journal in memory, with the PostgreSQL journal's semantics statement for statement
 * (`Journal.ts`): a run transition applies only from its `from` statuses, a guarded commit
 * writes nothing unless it does, step rows and waits are upserted by node, events, spans and HITL
 * requests are written once per key. The kernel's property suite runs on it in milliseconds and
 * the same suite checks the PostgreSQL journal agrees. Nothing survives the process.
 */
export class MemoryJournalStore {
  private readonly rows = new Map<string, RunRows>()

  /** A run as the run module creates it (pending, or held). */
  insertRun(record: RunRecord) {
    this.rows.set(record.id, {
      run: { record, output: null, named_outputs: {}, wake_seq: 0, wake_done: 0, dormant: false, started: false, finished: false },
      steps: new Map(),
      events: [],
      spans: new Set(),
      hitl: new Map(),
      waits: new Map()
    })
  }

  run(runId: string): MemoryRun | undefined {
    return this.rows.get(runId)?.run
  }

  events(runId: string): ReadonlyArray<StoredEvent & { readonly key: string | undefined }> {
    return this.rows.get(runId)?.events ?? []
  }

  /** Resolves a node's wait, as the run module does for an answer or a fired timer, and wakes the run. */
  resolveWait(runId: string, nodeId: string, resolution: unknown) {
    const rows = this.rows.get(runId)
    const wait = rows?.waits.get(nodeId)
    if (rows === undefined || wait === undefined || wait.resolved) return false
    wait.resolution = resolution
    wait.resolved = true
    rows.run.wake_seq += 1
    return true
  }

  /** Answers a node's open HITL request, as the HITL module does, and wakes the run. */
  answerHitl(runId: string, nodeId: string, response: unknown) {
    const rows = this.rows.get(runId)
    const request = rows?.hitl.get(nodeId)
    if (rows === undefined || request === undefined || (request.status !== "pending" && request.status !== "claimed")) return false
    request.status = "completed"
    request.response = response
    rows.run.wake_seq += 1
    return true
  }

  load(runId: string): Journaled | undefined {
    const rows = this.rows.get(runId)
    if (rows === undefined) return undefined
    const children = [...this.rows.values()].filter((r) => r.run.record.parent_run_id === runId)
    return {
      run: rows.run.record,
      last_seq: rows.events.reduce((max, e) => Math.max(max, e.seq), 0),
      wake_seq: rows.run.wake_seq,
      keys: rows.events.flatMap((e) => (e.key === undefined ? [] : [e.key])),
      steps: [...rows.steps.values()].sort((a, b) => a.position - b.position).map((s) => ({
        id: s.id,
        node_id: s.node_id,
        status: s.status,
        output: s.output ?? undefined,
        error: s.error,
        attempt: s.attempt,
        position: s.position
      })),
      hitl: [...rows.hitl.values()].map((h) => ({ id: h.id, node_id: h.node_id, status: h.status, response: h.response ?? undefined })),
      children: children.map((c) => ({
        id: c.run.record.id,
        node_id: c.run.record.parent_node_id ?? "",
        status: c.run.record.status,
        output: c.run.output ?? undefined,
        error: c.run.record.error
      })),
      waits: [...rows.waits.values()].map((w) => ({ ...w, resolution: w.resolution ?? undefined }))
    }
  }

  commit(run: JournalRun, batch: Batch, firstSeq: number, guarded: boolean): Committed {
    const rows = this.rows.get(run.id)
    const u = batch.runUpdate
    if (rows === undefined) return { status: undefined, wakeSeq: undefined, hitlCancelled: 0 }
    const applies = u !== undefined && (u.from === undefined || u.from.includes(rows.run.record.status))
    if (guarded && u !== undefined && !applies) return { status: undefined, wakeSeq: undefined, hitlCancelled: 0 }
    const row = rows.run
    if (u !== undefined && applies) {
      const status: RunStatus = u.to ?? row.record.status
      row.record = { ...row.record, status, ...(u.error !== undefined ? { error: u.error } : {}) }
      if (u.to === "running") row.started = true
      if (u.to !== undefined && isTerminal(u.to)) {
        row.finished = true
        row.dormant = false
      }
      if (u.output !== undefined) row.output = u.output
      if (u.named_outputs !== undefined) row.named_outputs = u.named_outputs
      if (u.dormant !== undefined) row.dormant = u.dormant
      if (u.wake_done !== undefined) row.wake_done = Math.max(row.wake_done, u.wake_done)
    }
    for (const s of batch.steps.values()) {
      const before = rows.steps.get(s.node_id)
      rows.steps.set(s.node_id, {
        id: before?.id ?? s.id,
        node_id: s.node_id,
        node_type: before?.node_type ?? s.node_type,
        status: s.status,
        output: s.output ?? null,
        error: s.error ?? null,
        attempt: s.attempt,
        position: before?.position ?? s.position,
        started: s.started || (before?.started ?? false),
        finished: s.finished || (before?.finished ?? false)
      })
    }
    batch.events.forEach((e, i) => {
      const seq = firstSeq + i
      if (rows.events.some((x) => x.seq === seq || (e.key !== undefined && x.key === e.key))) return
      rows.events.push({ seq, key: e.key, type: e.type, payload: e.payload })
    })
    rows.events.sort((a, b) => a.seq - b.seq)
    for (const span of batch.spans) rows.spans.add(span.span_id)
    for (const h of batch.hitl) {
      if (!rows.hitl.has(h.node_id)) rows.hitl.set(h.node_id, { id: h.id, node_id: h.node_id, status: "pending", response: null })
    }
    for (const w of batch.waits) {
      rows.waits.set(w.node_id, {
        node_id: w.node_id,
        kind: w.kind === "child" || w.kind === "timer" ? w.kind : "external",
        key: w.key,
        resolution: null,
        resolved: false
      })
    }
    let hitlCancelled = 0
    if (batch.cancelHitl) {
      for (const h of rows.hitl.values()) {
        if (h.status !== "pending" && h.status !== "claimed") continue
        h.status = "cancelled"
        hitlCancelled += 1
      }
    }
    for (const id of batch.wake) {
      const woken = this.rows.get(id)
      if (woken !== undefined) woken.run.wake_seq += 1
    }
    return u === undefined
      ? { status: undefined, wakeSeq: undefined, hitlCancelled }
      : applies
      ? { status: row.record.status, wakeSeq: row.wake_seq, hitlCancelled }
      : { status: undefined, wakeSeq: undefined, hitlCancelled }
  }

  after(runId: string, seq: number): ReadonlyArray<StoredEvent> {
    return this.events(runId).filter((e) => e.seq > seq).map(({ payload, seq, type }) => ({ seq, type, payload }))
  }

  endedBy(runId: string, seq: number): boolean {
    const last = this.events(runId).at(-1)
    return last !== undefined && last.seq <= seq && isFinalEvent(last.type)
  }
}

/** The journal and the run events over one in-memory store. */
export const memoryJournalLayer = (store: MemoryJournalStore) =>
  Layer.mergeAll(
    Layer.succeed(Journal, {
      load: (runId) => Effect.sync(() => store.load(runId)),
      commit: (run, batch, firstSeq, guarded = false) => Effect.sync(() => store.commit(run, batch, firstSeq, guarded)),
      withTransaction: (effect) => effect
    }),
    Layer.succeed(RunEvents, {
      after: (runId, seq) => Effect.sync(() => store.after(runId, seq)),
      endedBy: (runId, seq) => Effect.sync(() => store.endedBy(runId, seq)),
      notify: () => Effect.void
    })
  )
