import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"

const HOUR = 3_600_000
/** An hour is counted once it ended this long ago: every write that began before its end has committed by then. */
const SETTLE_MS = 10 * 60_000
/** Uncounted hours a list counts itself before it falls back to counting the history (the sweep counts the rest). */
const INLINE_HOURS = 6
/** How long a tenant's first run is remembered: runs only go (expiry), and an older first only costs empty hours counted. */
const FIRST_TTL_MS = 60_000

const hourStart = (at: number) => Math.floor(at / HOUR) * HOUR
const iso = (at: number) => new Date(at).toISOString()

const markRows = decodeRows("run_hour_marks", Schema.Struct({ version: Schema.String, counted: Schema.Boolean }))
const hourRows = decodeRows("run_hour_marks", Schema.Struct({ hour: Schema.String }))
const firstRows = decodeRows("runs", Schema.Struct({ created_at: Schema.DateFromSelf }))
const countRows = decodeRows(
  "runs",
  Schema.Struct({ workflow_id: Schema.String, status: Schema.String, trigger_type: Schema.String, runs: Schema.Number, solo: Schema.Number })
)
const totalRows = decodeRows(
  "runs",
  Schema.Struct({ cached: Schema.Number, dirty: Schema.Number, counted: Schema.Number, live: Schema.Number })
)

export interface WorkflowRunFilter {
  readonly trigger_type?: string | undefined
  readonly status?: string | undefined
  readonly since?: Date | undefined
}

/**
 * Exact totals of the run lists without counting the whole history: a tenant's runs of each closed
 * hour (UTC, ended over ten minutes ago) are counted once into `run_hour_counts` (by AI Employee,
 * status and trigger); a total sums those rows and counts only the open hours' runs. Triggers on
 * `runs` mark an hour uncounted whenever one of its runs is inserted, removed or changes a counted
 * column (run migration 0011), and an hour is stored only if its mark did not move while it was
 * counted (the mark's row lock orders the two), so a stored count is never stale. A list that
 * finds more than a few uncounted hours counts the history as before; the retention sweep counts
 * closed hours in the background.
 */
export class RunTotals extends Effect.Service<RunTotals>()("RunTotals", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const firsts = new Map<string, { readonly hour: number | undefined; readonly at: number }>()

    /** The start of the first hour not counted yet (ms). */
    const openFrom = () => hourStart(Date.now() - SETTLE_MS)

    /** The hour of the tenant's first run (undefined: none), read again after FIRST_TTL_MS or when asked. */
    const firstHour = (tenantId: string, fresh = false) =>
      Effect.gen(function*() {
        const known = firsts.get(tenantId)
        if (!fresh && known !== undefined && Date.now() - known.at < FIRST_TTL_MS) return known.hour
        const [first] = yield* sql`SELECT created_at FROM runs WHERE tenant_id = ${tenantId} AND NOT is_dry_run ORDER BY created_at LIMIT 1`
          .pipe(firstRows, Effect.orDie)
        const hour = first === undefined ? undefined : hourStart(first.created_at.getTime())
        if (firsts.size >= 10_000) firsts.clear()
        firsts.set(tenantId, { hour, at: Date.now() })
        return hour
      })

    const countHour = (tenantId: string, hour: string) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO run_hour_marks (tenant_id, hour) VALUES (${tenantId}, ${hour}::timestamptz) ON CONFLICT DO NOTHING`
        const [mark] = yield* sql`SELECT version::text AS version, counted FROM run_hour_marks WHERE tenant_id = ${tenantId} AND hour = ${hour}::timestamptz`
          .pipe(markRows)
        if (mark === undefined || mark.counted) return
        const counts = yield* sql`
          SELECT workflow_id, status, trigger_type, count(*)::int AS runs, count(*) FILTER (WHERE parent_run_id IS NULL AND session_id IS NULL)::int AS solo
          FROM runs WHERE tenant_id = ${tenantId} AND NOT is_dry_run
            AND created_at >= ${hour}::timestamptz AND created_at < ${hour}::timestamptz + interval '1 hour'
          GROUP BY workflow_id, status, trigger_type`.pipe(countRows)
        // Waits for a writer that is marking the hour and sees its new version: then nothing is stored.
        const stored = yield* sql`UPDATE run_hour_marks SET counted = true
          WHERE tenant_id = ${tenantId} AND hour = ${hour}::timestamptz AND version = ${mark.version}::bigint AND NOT counted
          RETURNING hour::text AS hour`.pipe(hourRows)
        if (stored.length === 0 || counts.length === 0) return
        yield* sql`INSERT INTO run_hour_counts ${sql.insert(counts.map((c) => ({ tenant_id: tenantId, hour, ...c })))}`
      })).pipe(Effect.orDie)

    /**
     * The closed hours that are not counted: from the tenant's first run on, and any hour marked
     * since (an hour whose runs all went, by expiry or otherwise, is counted again: as empty).
     * Marks before the first run's hour (their runs expired) are dropped.
     */
    const uncounted = (tenantId: string) =>
      Effect.gen(function*() {
        const end = openFrom()
        const first = yield* firstHour(tenantId, true)
        const start = first ?? end
        yield* sql`DELETE FROM run_hour_marks WHERE tenant_id = ${tenantId} AND hour < ${iso(start)}::timestamptz AND counted`
        yield* sql`DELETE FROM run_hour_counts WHERE tenant_id = ${tenantId} AND hour < ${iso(start)}::timestamptz`
        const rows = yield* sql`SELECT hour::text AS hour FROM run_hour_marks WHERE tenant_id = ${tenantId} AND NOT counted AND hour < ${iso(end)}::timestamptz
          UNION
          SELECT h::text AS hour FROM generate_series(${iso(start)}::timestamptz, ${iso(end - HOUR)}::timestamptz, interval '1 hour') h
          WHERE NOT EXISTS (SELECT 1 FROM run_hour_marks m WHERE m.tenant_id = ${tenantId} AND m.hour = h AND m.counted)
          ORDER BY 1`.pipe(hourRows)
        return rows.map((r) => r.hour)
      }).pipe(Effect.orDie)

    /** Counts the tenant's uncounted closed hours (all of them, or up to `limit`); whether none is left. */
    const countClosedHours = (tenantId: string, limit = Number.POSITIVE_INFINITY) =>
      Effect.gen(function*() {
        const hours = yield* uncounted(tenantId)
        if (hours.length > limit) return false
        yield* Effect.forEach(hours, (hour) => countHour(tenantId, hour), { discard: true })
        return true
      })

    /**
     * A total from the counted hours (the sum of `column` over the run_hour_counts rows `cached` keeps)
     * and `live` (a count of the runs from the open hours' start), read in one statement; undefined
     * when an hour in range was found uncounted (a run of it changed meanwhile) or too many are.
     */
    const combine = (
      tenantId: string,
      from: number | undefined,
      column: "runs" | "solo",
      cached: Statement.Fragment,
      live: (boundary: Date) => Statement.Fragment
    ) =>
      Effect.gen(function*() {
        // One statement answers, with what proves it whole: every closed hour from the tenant's first run (or `from`) counted, none marked since.
        const attempt = (first: number | undefined) =>
          Effect.suspend(() => {
            const boundary = openFrom()
            const start = Math.min(Math.max(first ?? boundary, from ?? Number.NEGATIVE_INFINITY), boundary)
            const range = sql.and([sql`tenant_id = ${tenantId}`, sql`hour < ${iso(boundary)}::timestamptz`, sql`hour >= ${iso(start)}::timestamptz`])
            const expected = (boundary - start) / HOUR
            return sql`SELECT
                (SELECT coalesce(sum(${sql(column)}), 0) FROM run_hour_counts WHERE ${range} AND ${cached})::int AS cached,
                (SELECT count(*) FROM run_hour_marks WHERE tenant_id = ${tenantId} AND hour < ${iso(boundary)}::timestamptz
                  AND hour >= ${from === undefined ? "-infinity" : iso(from)}::timestamptz AND NOT counted)::int AS dirty,
                (SELECT count(*) FROM run_hour_marks WHERE ${range} AND counted)::int AS counted,
                (${live(new Date(boundary))})::int AS live`.pipe(
              totalRows,
              Effect.map(([row]) => (row === undefined || row.dirty > 0 || row.counted !== expected ? undefined : row.cached + row.live)),
              Effect.orDie
            )
          })
        const total = yield* attempt(yield* firstHour(tenantId))
        if (total !== undefined) return total
        return (yield* countClosedHours(tenantId, INLINE_HOURS)) ? yield* attempt(yield* firstHour(tenantId)) : undefined
      })
    /** The exact number of an AI Employee's runs (dry runs aside) that the filter keeps. */
    const forWorkflow = (tenantId: string, workflowId: string, f: WorkflowRunFilter) =>
      Effect.gen(function*() {
        const where = sql.and([
          sql`tenant_id = ${tenantId}`,
          sql`workflow_id = ${workflowId}`,
          sql`NOT is_dry_run`,
          ...(f.trigger_type !== undefined ? [sql`trigger_type = ${f.trigger_type}`] : []),
          ...(f.status !== undefined ? [sql`status = ${f.status}`] : []),
          ...(f.since !== undefined ? [sql`created_at >= ${f.since}`] : [])
        ])
        // Counted hours are whole hours: a `since` inside an hour counts that hour's part from the runs.
        const from = f.since === undefined ? undefined : hourStart(f.since.getTime() + HOUR - 1)
        const cached = sql.and([
          sql`workflow_id = ${workflowId}`,
          ...(f.trigger_type !== undefined ? [sql`trigger_type = ${f.trigger_type}`] : []),
          ...(f.status !== undefined ? [sql`status = ${f.status}`] : [])
        ])
        const total = yield* combine(tenantId, from, "runs", cached, (boundary) => {
          const after = sql`created_at >= ${boundary}`
          const recent = from === undefined ? after : sql.or([after, sql`created_at < ${new Date(Math.min(from, boundary.getTime()))}`])
          return sql`(SELECT count(*) FROM runs WHERE ${where} AND ${recent})`
        })
        if (total !== undefined) return total
        const [row] = yield* sql`SELECT count(*)::int AS live, 0 AS cached, 0 AS dirty, 0 AS counted FROM runs WHERE ${where}`.pipe(
          totalRows,
          Effect.orDie
        )
        return row?.live ?? 0
      })

    /** The exact number of entries of the recent-runs list: top-level runs, a chat session's runs counting once. */
    const recent = (tenantId: string) =>
      Effect.gen(function*() {
        const top = sql`tenant_id = ${tenantId} AND NOT is_dry_run AND parent_run_id IS NULL`
        // Sessions are counted from the runs (a session's runs span hours); only chat runs are read, by the runs_session index.
        const total = yield* combine(tenantId, undefined, "solo", sql`true`, (boundary) =>
          sql`(SELECT count(*) FROM runs WHERE ${top} AND session_id IS NULL AND created_at >= ${boundary})
            + (SELECT count(DISTINCT session_id) FROM runs WHERE ${top} AND session_id IS NOT NULL)`)
        if (total !== undefined) {
          return total
        }
        const [row] = yield* sql`SELECT (count(*) FILTER (WHERE session_id IS NULL) + count(DISTINCT session_id))::int AS live,
          0 AS cached, 0 AS dirty, 0 AS counted FROM runs WHERE ${top}`.pipe(totalRows, Effect.orDie)
        return row?.live ?? 0
      })

    return traced("RunTotals", { forWorkflow, recent, countClosedHours })
  })
}) {}
