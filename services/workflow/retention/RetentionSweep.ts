import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Metric, Schema } from "effect"
import { retentionRemoved } from "../../../otel/Metrics.js"
import { Audit } from "../../../platform/Audit.js"
import { keepRunning } from "../../../platform/Background.js"
import { AppConfig } from "../../../platform/Config.js"
import { decodeRows, Timestamp } from "../../../platform/Rows.js"
import { withoutDetail } from "../../../runtime/run/JournalRecord.js"
import { TerminalStatuses } from "../../../schemas/RunLifecycle.js"
import { RunTotals } from "../RunTotals.js"
import { expireWholeDays } from "./DayExpiry.js"

/** Rows removed per statement: each is a short transaction of its own, so live runs never wait long on one. */
const BATCH = 500
/** Runs are removed row by row only a day past their retention: by then a day whose runs all expired has gone whole (DayExpiry.ts). */
const GRACE_DAYS = 1

const TenantRetention = Schema.Struct({ id: Schema.String, days: Schema.NullOr(Schema.Number), detail_days: Schema.NullOr(Schema.Number) })
const tenantRows = decodeRows("tenants", TenantRetention)
const markRows = decodeRows("retention_marks", Schema.Struct({ detail_through: Schema.NullOr(Timestamp) }))
const recordRows = decodeRows("run_events", Schema.Struct({ run_id: Schema.String, seq: Schema.NumberFromString, body: Schema.Uint8ArrayFromSelf }))
const detailRows = decodeRows("runs", Schema.Struct({ id: Schema.String, finished_at: Timestamp, held: Schema.Boolean }))

/**
 * Expiry of run history, every RETENTION_SWEEP_SECONDS on each process that serves the workflow
 * service (concurrent sweeps skip each other's rows). Whole days go first, when all their runs may
 * (DayExpiry.ts); then, per tenant, finished runs that ended more than a day past its retention go
 * with their journal (steps, events, spans by trigger; HITL requests and
 * waits by cascade), unless held (the run, or its AI Employee) or a child of a run still going;
 * with a shorter detail period, spans and streamed tokens of runs that ended before it go; and
 * integration executions and MCP tool calls older than the retention. Counted in
 * `bp.retention.removed` and, per tenant and sweep, in the audit log (`retention.expired`). Then
 * the tenant's closed hours of runs are counted for the lists' totals (RunTotals.ts).
 */
export const RetentionSweepLive = Layer.scopedDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  const audit = yield* Audit
  const totals = yield* RunTotals
  const terminal = [...TerminalStatuses]

  /** Repeats a batch statement until it removes fewer than a batch; the rows removed in all. */
  const inBatches = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
    Effect.gen(function*() {
      let total = 0
      for (;;) {
        const removed = (yield* Effect.orDie(statement)).length
        total += removed
        if (removed < BATCH) return total
      }
    })

  /** The runs' journal records without their streamed text and spans (a record left with nothing goes). */
  const stripRecords = (runIds: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const records = yield* sql`SELECT run_id, seq, body FROM run_events WHERE run_id IN ${sql.in(runIds)} AND detail`.pipe(recordRows)
      const kept: Array<{ run_id: string; seq: number; body: string }> = []
      const gone: Array<{ run_id: string; seq: number }> = []
      for (const r of records) {
        const body = withoutDetail(r.run_id, r.seq, r.body)
        if (body === undefined) gone.push({ run_id: r.run_id, seq: r.seq })
        else kept.push({ run_id: r.run_id, seq: r.seq, body: body.toString("base64") })
      }
      if (kept.length > 0) {
        yield* sql`UPDATE run_events e SET body = decode(v.body, 'base64'), detail = false
          FROM jsonb_to_recordset(${JSON.stringify(kept)}::jsonb) AS v(run_id uuid, seq bigint, body text)
          WHERE e.run_id = v.run_id AND e.seq = v.seq`
      }
      if (gone.length > 0) {
        yield* sql`DELETE FROM run_events e USING jsonb_to_recordset(${JSON.stringify(gone)}::jsonb) AS v(run_id uuid, seq bigint)
          WHERE e.run_id = v.run_id AND e.seq = v.seq`
      }
    })

  const expireRuns = (tenantId: string, days: number) =>
    inBatches(sql`
      WITH doomed AS (
        SELECT r.id FROM runs r
        WHERE r.tenant_id = ${tenantId} AND r.finished_at < now() - make_interval(days => ${days + GRACE_DAYS})
          AND r.status IN ${sql.in(terminal)} AND NOT r.retention_hold
          AND NOT EXISTS (SELECT 1 FROM workflows w WHERE w.id = r.workflow_id AND w.retention_hold)
          AND NOT EXISTS (SELECT 1 FROM runs p WHERE p.id = r.parent_run_id AND p.status NOT IN ${sql.in(terminal)})
        ORDER BY r.finished_at LIMIT ${BATCH} FOR UPDATE OF r SKIP LOCKED
      )
      DELETE FROM runs WHERE id IN (SELECT id FROM doomed) RETURNING id`)

  /** Spans and tokens of runs that ended since the tenant's mark and before its detail period; the mark moves past them. */
  const expireDetail = (tenantId: string, days: number) =>
    Effect.gen(function*() {
      let total = 0
      for (;;) {
        const [mark] = yield* sql`SELECT detail_through FROM retention_marks WHERE tenant_id = ${tenantId}`.pipe(markRows, Effect.orDie)
        const runs = yield* sql`
          SELECT r.id, r.finished_at, (r.retention_hold OR coalesce(w.retention_hold, false)) AS held FROM runs r
          LEFT JOIN workflows w ON w.id = r.workflow_id
          WHERE r.tenant_id = ${tenantId} AND r.finished_at > ${mark?.detail_through ?? new Date(0)}
            AND r.finished_at < now() - make_interval(days => ${days}) AND r.status IN ${sql.in(terminal)}
          ORDER BY r.finished_at LIMIT ${BATCH}`.pipe(detailRows, Effect.orDie)
        const last = runs.at(-1)
        if (last === undefined) return total
        const ids = runs.filter((r) => !r.held).map((r) => r.id)
        yield* sql.withTransaction(Effect.gen(function*() {
          if (ids.length > 0) {
            yield* sql`DELETE FROM run_spans WHERE run_id IN ${sql.in(ids)}`
            yield* sql`DELETE FROM run_events WHERE run_id IN ${sql.in(ids)} AND body IS NULL AND type = 'token'`
            yield* stripRecords(ids)
          }
          yield* sql`INSERT INTO retention_marks (tenant_id, detail_through) VALUES (${tenantId}, ${last.finished_at})
            ON CONFLICT (tenant_id) DO UPDATE SET detail_through = EXCLUDED.detail_through`
        })).pipe(Effect.orDie)
        total += ids.length
        if (runs.length < BATCH) return total
      }
    })

  const expireExecutions = (tenantId: string, days: number) =>
    Effect.zipWith(
      inBatches(sql`DELETE FROM integration_executions WHERE id IN (
        SELECT id FROM integration_executions WHERE tenant_id = ${tenantId} AND created_at < now() - make_interval(days => ${days})
        ORDER BY created_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED) RETURNING id`),
      inBatches(sql`DELETE FROM mcp_tool_calls WHERE id IN (
        SELECT id FROM mcp_tool_calls WHERE tenant_id = ${tenantId} AND created_at < now() - make_interval(days => ${days})
        ORDER BY created_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED) RETURNING id`),
      (a, b) => a + b
    )

  const sweepTenant = (tenant: typeof TenantRetention.Type, wholeDays: number) =>
    Effect.gen(function*() {
      const days = tenant.days ?? config.runRetentionDays
      const runs = wholeDays + (yield* expireRuns(tenant.id, days))
      const details = tenant.detail_days !== null && tenant.detail_days < days ? yield* expireDetail(tenant.id, tenant.detail_days) : 0
      const executions = yield* expireExecutions(tenant.id, days)
      if (runs + details + executions === 0) return
      yield* Metric.incrementBy(retentionRemoved.pipe(Metric.tagged("kind", "runs")), runs)
      yield* Metric.incrementBy(retentionRemoved.pipe(Metric.tagged("kind", "run_details")), details)
      yield* Metric.incrementBy(retentionRemoved.pipe(Metric.tagged("kind", "executions")), executions)
      yield* audit.record(undefined, {
        tenantId: tenant.id,
        action: "retention.expired",
        resourceType: "tenant",
        resourceId: tenant.id,
        details: { runs, run_details: details, executions, run_retention_days: days, run_detail_retention_days: tenant.detail_days }
      })
    }).pipe(Effect.withSpan("RetentionSweep.tenant", { attributes: { "bp.tenant_id": tenant.id } }))

  const sweep = Effect.gen(function*() {
    const tenants = yield* sql`SELECT id, (settings->>'run_retention_days')::int AS days,
        (settings->>'run_detail_retention_days')::int AS detail_days FROM tenants ORDER BY id`.pipe(tenantRows, Effect.orDie)
    const byDay = yield* expireWholeDays(Date.now(), config.runRetentionDays)
    for (const tenant of tenants) {
      yield* sweepTenant(tenant, byDay.get(tenant.id) ?? 0)
      // The closed hours' run counts the lists' totals sum (RunTotals.ts), counted here rather than by a list.
      yield* totals.countClosedHours(tenant.id)
    }
  }).pipe(Effect.withSpan("RetentionSweep.sweep"))

  yield* keepRunning("Expiring run history", Effect.zipRight(sweep, Effect.sleep(Duration.seconds(config.retentionSweepSeconds))))
}))
