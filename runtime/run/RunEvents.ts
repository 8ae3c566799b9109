import { SqlClient } from "@effect/sql"
import { Context, Effect, Either, Layer, Schema } from "effect"
import { EventBus } from "../../platform/EventBus.js"
import { isFinalEvent, RunStreamEvent } from "../../schemas/RunLifecycle.js"
import { decodeRecord, type RecordEvent } from "./JournalRecord.js"

export interface StoredEvent {
  readonly seq: number
  readonly type: string
  readonly payload: Record<string, unknown>
}

const decodeEvent = Schema.decodeUnknownEither(RunStreamEvent, { onExcessProperty: "preserve" })

/**
 * The SSE body of an event: its type, the run and its fields, as the lifecycle module's
 * `RunStreamEvent` reads them (`contract: false`: an event stored in a shape the union no longer
 * describes, sent as stored, since a stream never drops an event).
 */
export const eventJson = (runId: string, e: StoredEvent): { readonly json: RunStreamEvent | Record<string, unknown>; readonly contract: boolean } => {
  const json = { type: e.type, run_id: runId, ...e.payload }
  return Either.match(decodeEvent(json), { onLeft: () => ({ json, contract: false }), onRight: (event) => ({ json: event, contract: true }) })
}

/** A row of run_events: a record of a commit's events (this release) or one event (earlier ones). */
export interface EventRow {
  readonly seq: string | number
  readonly type: string | null
  readonly payload: Record<string, unknown> | null
  readonly body: Uint8Array | null
  readonly span_id?: string | null
  readonly created_at?: Date
}

/** The events of a run's rows, in order: a record's expanded, a single event's as it is. */
export const storedEvents = (runId: string, rows: ReadonlyArray<EventRow>): ReadonlyArray<RecordEvent & { readonly at: Date | undefined }> =>
  rows.flatMap((r) =>
    r.body !== null
      ? decodeRecord(runId, Number(r.seq), r.body).events.map((e) => ({ ...e, at: r.created_at }))
      : [{ seq: Number(r.seq), type: r.type ?? "", payload: r.payload ?? {}, key: undefined, spanId: r.span_id ?? undefined, at: r.created_at }]
  )

export const runChannel = (runId: string) => `run:${runId}`

/**
 * A run's events as followers read them: stored by the kernel's journal with a per-run sequence
 * number (the SSE `id:`); `notify` tells followers on every node that there is more to read.
 */
export class RunEvents extends Context.Tag("RunEvents")<RunEvents, {
  readonly after: (runId: string, seq: number) => Effect.Effect<ReadonlyArray<StoredEvent>>
  /** The run's last event is its final one (run_completed, ...), numbered `seq` or lower. */
  readonly endedBy: (runId: string, seq: number) => Effect.Effect<boolean>
  readonly notify: (runId: string) => Effect.Effect<void>
}>() {
  static readonly layer = Layer.effect(
    RunEvents,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const bus = yield* EventBus
      return {
        after: (runId, seq) =>
          // Hot path, typed by assertion (not decoded): every stream's poll reads here, up to thousands of events a run; each event is checked against RunStreamEvent as it is sent (RunFeeds).
          sql<EventRow>`SELECT seq, type, payload, body FROM run_events WHERE run_id = ${runId} AND seq > ${seq} ORDER BY seq`.pipe(
            Effect.map((rows) => storedEvents(runId, rows).filter((e) => e.seq > seq).map((e) => ({ seq: e.seq, type: e.type, payload: e.payload }))),
            Effect.orDie
          ),
        endedBy: (runId, seq) =>
          // Hot path, typed by assertion (not decoded): read by a stream reopened at its run's last event.
          sql<EventRow>`SELECT seq, type, payload, body FROM run_events WHERE run_id = ${runId} ORDER BY seq DESC LIMIT 1`.pipe(
            Effect.map((rows) => {
              const last = storedEvents(runId, rows).at(-1)
              return last !== undefined && last.seq <= seq && isFinalEvent(last.type)
            }),
            Effect.orDie
          ),
        notify: (runId) => bus.publish(runChannel(runId), "more")
      }
    })
  )
}
