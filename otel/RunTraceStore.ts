import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { decodeRows, JsonArrayOf, JsonObject, JsonObjectOf, Timestamp } from "../platform/Rows.js"
import { decodeRecord, type RecordSpans } from "../runtime/run/JournalRecord.js"
import { RunRow } from "../schemas/RunRow.js"
import { type CompactSpan, expandSpan } from "./CompactSpan.js"
import type { OtlpLogRecord } from "./OtlpJson.js"
import { type OtlpSpan, toOtlp } from "./OtlpSpan.js"
import { type PauseEvent, rootSpan, RunRecordForTrace, RUNS_SCOPE } from "./RootSpan.js"
import { eventLog } from "./RunLogs.js"
import { rootSpanId } from "./RunTraceIds.js"
import { Telemetry } from "./Telemetry.js"

/** A run as the trace endpoints read it: the root span's columns and its tenant. */
export const TraceRun = Schema.Struct({ ...RunRecordForTrace.fields, tenant_id: RunRow.fields.tenant_id })
export type TraceRun = typeof TraceRun.Type

/** Rows of `SELECT ${RunTraceStore.columns} FROM runs`. */
export const traceRunRows = decodeRows("runs", TraceRun)

/** One run's worklog: its spans (the root first) and its log records (one per event, tokens aside), in OTLP JSON. */
export interface Worklog {
  readonly run: TraceRun
  readonly spans: ReadonlyArray<{ readonly scope: string; readonly span: OtlpSpan }>
  readonly logs: ReadonlyArray<OtlpLogRecord>
}

const RUN_COLUMNS =
  "id, tenant_id, workflow_id, workflow_name, version, status, trigger_type, is_dry_run, error, parent_run_id, parent_node_id, created_at, finished_at"

/** A run's stored span rows as OTLP spans, in start order: compact sets (this release) and single OTLP spans (earlier ones). */
const storedSpans = (
  runId: string,
  rows: ReadonlyArray<{ scope: string; otlp: OtlpSpan | null; spans: ReadonlyArray<CompactSpan> | null }>
) =>
  rows.flatMap((row) =>
    row.spans !== null ? row.spans.map((c) => expandSpan(runId, row.scope, c)) : row.otlp !== null ? [{ scope: row.scope, span: row.otlp }] : []
  ).sort((a, b) => {
    const at = BigInt(a.span.startTimeUnixNano)
    const bt = BigInt(b.span.startTimeUnixNano)
    return at < bt ? -1 : at > bt ? 1 : a.span.spanId < b.span.spanId ? -1 : a.span.spanId > b.span.spanId ? 1 : 0
  })

const EventRows = Schema.Struct({
  run_id: Schema.String,
  seq: Schema.NumberFromString,
  type: Schema.NullOr(Schema.String),
  payload: Schema.NullOr(JsonObject),
  body: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  span_id: Schema.NullOr(Schema.String),
  created_at: Timestamp
})

/** A row of a run's journal: its events (a record's, or the one event of an earlier release's row) and the spans it holds. */
interface JournalEntry {
  readonly runId: string
  readonly at: Date
  readonly events: ReadonlyArray<{ readonly type: string; readonly payload: Record<string, unknown>; readonly spanId: string | undefined }>
  readonly spans: ReadonlyArray<RecordSpans>
}

/** Reads runs' stored spans and logs, adds each run's root span, and exports roots. */
export class RunTraceStore extends Context.Tag("RunTraceStore")<RunTraceStore, {
  readonly worklogs: (runs: ReadonlyArray<TraceRun>) => Effect.Effect<ReadonlyArray<Worklog>>
  readonly run: (runId: string) => Effect.Effect<TraceRun | undefined>
  /** Sends a finished run's root span to the OTLP exporter (stored spans went as they ended). */
  readonly exportRoot: (runId: string) => Effect.Effect<void>
}>() {
  static readonly columns = RUN_COLUMNS

  static readonly layer = Layer.effect(
    RunTraceStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const telemetry = yield* Telemetry

      /** The runs' events (records expanded) and the spans their records hold. */
      const journalOf = (runIds: ReadonlyArray<string>) =>
        sql`SELECT run_id, seq, type, payload, body, span_id, created_at FROM run_events WHERE run_id IN ${sql.in(runIds)} ORDER BY run_id, seq`.pipe(
          decodeRows("run_events", EventRows),
          Effect.map((rows) =>
            rows.map((row): JournalEntry => {
              if (row.body === null) {
                const event = { type: row.type ?? "", payload: row.payload ?? {}, spanId: row.span_id ?? undefined }
                return { runId: row.run_id, at: row.created_at, events: [event], spans: [] }
              }
              const record = decodeRecord(row.run_id, row.seq, row.body)
              return { runId: row.run_id, at: row.created_at, events: record.events, spans: record.spans }
            })
          )
        )

      const pausesIn = (journal: ReadonlyArray<JournalEntry>, runId: string): ReadonlyArray<PauseEvent> =>
        journal.flatMap((j) =>
          j.runId !== runId ? [] : j.events.flatMap((e) =>
            e.type !== "run_paused" && e.type !== "run_resumed" ? [] : [{
              type: e.type,
              at: j.at,
              node_id: typeof e.payload.node_id === "string" ? e.payload.node_id : undefined,
              request_id: typeof e.payload.request_id === "string" ? e.payload.request_id : undefined
            }]
          )
        )

      const worklogs = (runs: ReadonlyArray<TraceRun>) =>
        Effect.gen(function*() {
          if (runs.length === 0) return []
          const ids = runs.map((r) => r.id)
          const [spans, journal] = yield* Effect.all([
            sql`SELECT run_id, scope, otlp, spans FROM run_spans
              WHERE run_id IN ${sql.in(ids)} ORDER BY start_unix_nano, span_id`.pipe(
              // The spans are the platform's own writing (RunSpanProcessor, CompactSpan): served as stored.
              decodeRows(
                "run_spans",
                Schema.Struct({
                  run_id: Schema.String,
                  scope: Schema.String,
                  otlp: Schema.NullOr(JsonObjectOf<OtlpSpan>()),
                  spans: Schema.NullOr(JsonArrayOf<CompactSpan>())
                })
              )
            ),
            journalOf(ids)
          ], { concurrency: 2 })
          const now = new Date()
          return runs.map((run) => ({
            run,
            spans: [
              { scope: RUNS_SCOPE, span: toOtlp(rootSpan(run, pausesIn(journal, run.id), telemetry.resource, now)).span },
              ...storedSpans(run.id, [
                ...spans.filter((s) => s.run_id === run.id),
                ...journal.flatMap((j) => (j.runId !== run.id ? [] : j.spans.map((set) => ({ scope: set.scope, otlp: null, spans: set.spans }))))
              ])
            ],
            logs: journal.flatMap((j) =>
              j.runId !== run.id ? [] : j.events.flatMap((e) => {
                if (e.type === "token") return []
                const log = eventLog({ runId: run.id, type: e.type, payload: e.payload, time: j.at, spanId: e.spanId ?? rootSpanId(run.id) })
                return log === undefined ? [] : [log]
              })
            )
          }))
        }).pipe(Effect.orDie, Effect.withSpan("RunTraceStore.worklogs"))

      const run = (runId: string) =>
        sql`SELECT ${sql.literal(RUN_COLUMNS)} FROM runs WHERE id = ${runId}`.pipe(
          traceRunRows,
          Effect.map((rows) => rows[0]),
          Effect.orDie
        )

      const exportRoot = (runId: string) =>
        Effect.gen(function*() {
          const found = yield* run(runId)
          if (found === undefined) return
          const journal = yield* journalOf([runId]).pipe(Effect.orDie)
          yield* telemetry.export(rootSpan(found, pausesIn(journal, runId), telemetry.resource, new Date()))
        })

      return {
        worklogs,
        run,
        exportRoot
      }
    })
  )
}
