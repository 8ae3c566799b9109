import { SqlClient } from "@effect/sql"
import { Context, Effect, Either, Layer, Schema } from "effect"
import { EventBus } from "../../platform/EventBus.js"
import { RunStreamEvent } from "../../schemas/RunLifecycle.js"

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

export const runChannel = (runId: string) => `run:${runId}`

/**
 * A run's events as followers read them: stored by the kernel's journal with a per-run sequence
 * number (the SSE `id:`); `notify` tells followers on every node that there is more to read.
 */
export class RunEvents extends Context.Tag("RunEvents")<RunEvents, {
  readonly after: (runId: string, seq: number) => Effect.Effect<ReadonlyArray<StoredEvent>>
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
          sql<{ seq: string; type: string; payload: Record<string, unknown> }>`SELECT seq, type, payload FROM run_events
            WHERE run_id = ${runId} AND seq > ${seq} ORDER BY seq`.pipe(
            Effect.map((rows) => rows.map((r) => ({ seq: Number(r.seq), type: r.type, payload: r.payload }))),
            Effect.orDie
          ),
        notify: (runId) => bus.publish(runChannel(runId), "more")
      }
    })
  )
}
