import { SqlClient } from "@effect/sql"
import { Effect, Layer, Context } from "effect"
import { eventLog } from "../../otel/RunLogs.js"
import { rootSpanId, runTraceId } from "../../otel/RunTrace.js"
import { EventBus } from "../EventBus.js"

export interface StoredEvent {
  readonly seq: number
  readonly type: string
  readonly payload: Record<string, unknown>
}

/** The SSE body of an event: its type, the run and its fields. */
export const eventJson = (runId: string, e: StoredEvent) => ({ type: e.type, run_id: runId, ...e.payload })

export const runChannel = (runId: string) => `run:${runId}`

/**
 * Every run event is stored with a per-run sequence number (the SSE `id:`) and a dedupe key, so
 * that an activity re-run after a crash does not emit the same event twice; then it is
 * published for live subscribers on every node.
 */
export class RunEvents extends Context.Tag("RunEvents")<RunEvents, {
  readonly append: (runId: string, type: string, payload: Record<string, unknown>, dedupeKey: string) => Effect.Effect<void>
  readonly after: (runId: string, seq: number) => Effect.Effect<ReadonlyArray<StoredEvent>>
}>() {
  static readonly layer = Layer.effect(
    RunEvents,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const bus = yield* EventBus
      return {
        append: (runId, type, payload, dedupeKey) =>
          // The event is also the run's log record, tied to the span it happened in (else the run's root).
          Effect.flatMap(Effect.option(Effect.currentSpan), (span) =>
          Effect.gen(function*() {
            const traceId = runTraceId(runId)
            const spanId = span._tag === "Some" && span.value.traceId === traceId ? span.value.spanId : rootSpanId(runId)
            const log = eventLog({ runId, type, payload, time: new Date(), spanId })
            const rows = yield* sql<{ seq: string }>`
              WITH next AS (UPDATE runs SET event_seq = event_seq + 1 WHERE id = ${runId} RETURNING event_seq, tenant_id),
              event AS (
                INSERT INTO run_events (run_id, seq, dedupe_key, type, payload)
                SELECT ${runId}, event_seq, ${dedupeKey}, ${type}, ${JSON.stringify(payload)}::jsonb FROM next
                ON CONFLICT (run_id, dedupe_key) DO NOTHING RETURNING seq
              ),
              log AS (
                INSERT INTO run_logs (run_id, seq, tenant_id, time_unix_nano, otlp)
                SELECT ${runId}, event.seq, next.tenant_id, ${log?.timeUnixNano ?? "0"}, ${JSON.stringify(log ?? null)}::jsonb
                FROM event, next WHERE ${log !== undefined}
              )
              SELECT seq FROM event`
            const row = rows[0]
            if (row === undefined) return
            yield* bus.publish(runChannel(runId), JSON.stringify({ seq: Number(row.seq), type, payload }))
          }).pipe(Effect.orDie, Effect.withSpan("RunEvents.append", { attributes: { type } }))),
        after: (runId, seq) =>
          sql<{ seq: string; type: string; payload: Record<string, unknown> }>`SELECT seq, type, payload FROM run_events
            WHERE run_id = ${runId} AND seq > ${seq} ORDER BY seq`.pipe(
            Effect.map((rows) => rows.map((r) => ({ seq: Number(r.seq), type: r.type, payload: r.payload }))),
            Effect.orDie
          )
      }
    })
  )
}
