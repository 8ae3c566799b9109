import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { decodeRows, JsonArrayOf, JsonObject, JsonObjectOf, Timestamp } from "../platform/Rows.js"
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

      const pausesOf = (runIds: ReadonlyArray<string>) =>
        sql`
          SELECT run_id, type, created_at, payload FROM run_events
          WHERE run_id IN ${sql.in(runIds)} AND type IN ('run_paused', 'run_resumed') ORDER BY run_id, seq`.pipe(
          decodeRows(
            "run_events",
            Schema.Struct({ run_id: Schema.String, type: Schema.Literal("run_paused", "run_resumed"), created_at: Timestamp, payload: JsonObject })
          )
        )

      const pause = (e: { type: "run_paused" | "run_resumed"; created_at: Date; payload: Record<string, unknown> }): PauseEvent => ({
        type: e.type,
        at: e.created_at,
        node_id: typeof e.payload.node_id === "string" ? e.payload.node_id : undefined,
        request_id: typeof e.payload.request_id === "string" ? e.payload.request_id : undefined
      })

      const worklogs = (runs: ReadonlyArray<TraceRun>) =>
        Effect.gen(function*() {
          if (runs.length === 0) return []
          const ids = runs.map((r) => r.id)
          const [spans, logs, pauses] = yield* Effect.all([
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
            sql`
              SELECT run_id, type, payload, created_at, span_id FROM run_events
              WHERE run_id IN ${sql.in(ids)} AND type <> 'token' ORDER BY run_id, seq`.pipe(
              decodeRows(
                "run_events",
                Schema.Struct({ run_id: Schema.String, type: Schema.String, payload: JsonObject, created_at: Timestamp, span_id: Schema.NullOr(Schema.String) })
              )
            ),
            pausesOf(ids)
          ], { concurrency: 3 })
          const now = new Date()
          return runs.map((run) => ({
            run,
            spans: [
              { scope: RUNS_SCOPE, span: toOtlp(rootSpan(run, pauses.filter((p) => p.run_id === run.id).map(pause), telemetry.resource, now)).span },
              ...storedSpans(run.id, spans.filter((s) => s.run_id === run.id))
            ],
            logs: logs.flatMap((e) => {
              if (e.run_id !== run.id) return []
              const log = eventLog({ runId: run.id, type: e.type, payload: e.payload, time: e.created_at, spanId: e.span_id ?? rootSpanId(run.id) })
              return log === undefined ? [] : [log]
            })
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
          const pauses = yield* pausesOf([runId]).pipe(Effect.orDie)
          yield* telemetry.export(rootSpan(found, pauses.map(pause), telemetry.resource, new Date()))
        })

      return {
        worklogs,
        run,
        exportRoot
      }
    })
  )
}
