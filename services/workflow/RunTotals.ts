import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"

const DAY = 86_400_000
/** A day is counted once it ended this long ago: every write that began before its end has committed by then. */
const SETTLE_MS = 10 * 60_000
/** Uncounted days a list counts itself before it falls back to counting the history (the sweep counts the rest). */
const INLINE_DAYS = 2

const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10)
const dayStart = (at: number) => Math.floor(at / DAY) * DAY

const markRows = decodeRows("run_day_marks", Schema.Struct({ version: Schema.String, counted: Schema.Boolean }))
const dayRows = decodeRows("run_day_marks", Schema.Struct({ day: Schema.String }))
const firstRows = decodeRows("runs", Schema.Struct({ created_at: Schema.DateFromSelf }))
const countRows = decodeRows(
  "runs",
  Schema.Struct({ workflow_id: Schema.String, status: Schema.String, trigger_type: Schema.String, runs: Schema.Number, solo: Schema.Number })
)
const totalRows = decodeRows(
  "runs",
  Schema.Struct({ cached: Schema.Number, dirty: Schema.Number, counted: Schema.Number, expected: Schema.Number, live: Schema.Number })
)

export interface WorkflowRunFilter {
  readonly trigger_type?: string | undefined
  readonly status?: string | undefined
  readonly since?: Date | undefined
}

/**
 * Exact totals of the run lists without counting the whole history: a tenant's runs of each closed
 * day (UTC, ended over ten minutes ago) are counted once into `run_day_counts` (by AI Employee,
 * status and trigger); a total sums those rows and counts only the open days' runs. Triggers on
 * `runs` mark a day uncounted whenever one of its runs is inserted, removed or changes a counted
 * column (run migration 0010), and a day is stored only if its mark did not move while it was
 * counted (the mark's row lock orders the two), so a stored count is never stale. A list that
 * finds more than a couple of uncounted days counts the history as before; the retention sweep
 * counts closed days in the background.
 */
export class RunTotals extends Effect.Service<RunTotals>()("RunTotals", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The start of the first day not counted yet (ms). */
    const openFrom = () => dayStart(Date.now() - SETTLE_MS)

    const countDay = (tenantId: string, day: string) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO run_day_marks (tenant_id, day) VALUES (${tenantId}, ${day}::date) ON CONFLICT DO NOTHING`
        const [mark] = yield* sql`SELECT version::text AS version, counted FROM run_day_marks WHERE tenant_id = ${tenantId} AND day = ${day}::date`
          .pipe(markRows)
        if (mark === undefined || mark.counted) return
        const counts = yield* sql`
          SELECT workflow_id, status, trigger_type, count(*)::int AS runs, count(*) FILTER (WHERE parent_run_id IS NULL AND session_id IS NULL)::int AS solo
          FROM runs WHERE tenant_id = ${tenantId} AND NOT is_dry_run
            AND created_at >= ${day}::date AT TIME ZONE 'UTC' AND created_at < (${day}::date + 1) AT TIME ZONE 'UTC'
          GROUP BY workflow_id, status, trigger_type`.pipe(countRows)
        // Waits for a writer that is marking the day and sees its new version: then nothing is stored.
        const stored = yield* sql`UPDATE run_day_marks SET counted = true
          WHERE tenant_id = ${tenantId} AND day = ${day}::date AND version = ${mark.version}::bigint AND NOT counted RETURNING day::text AS day`.pipe(dayRows)
        if (stored.length === 0 || counts.length === 0) return
        yield* sql`INSERT INTO run_day_counts ${sql.insert(counts.map((c) => ({ tenant_id: tenantId, day, ...c })))}`
      })).pipe(Effect.orDie)

    /**
     * The closed days that are not counted: from the tenant's first run on, and any day marked
     * since (a day whose runs all went, by expiry or otherwise, is counted again: as empty).
     */
    const uncounted = (tenantId: string) =>
      Effect.gen(function*() {
        const end = openFrom()
        const marked = (yield* sql`SELECT day::text AS day FROM run_day_marks WHERE tenant_id = ${tenantId} AND NOT counted
          AND day < ${isoDay(end)}::date`.pipe(dayRows)).map((r) => r.day)
        const [first] = yield* sql`SELECT created_at FROM runs WHERE tenant_id = ${tenantId} AND NOT is_dry_run ORDER BY created_at LIMIT 1`.pipe(firstRows)
        const start = first === undefined ? end : dayStart(first.created_at.getTime())
        const counted = new Set(
          (yield* sql`SELECT day::text AS day FROM run_day_marks WHERE tenant_id = ${tenantId} AND counted
            AND day >= ${isoDay(start)}::date AND day < ${isoDay(end)}::date`.pipe(dayRows)).map((r) => r.day)
        )
        const days = new Set(marked)
        for (let day = start; day < end; day += DAY) if (!counted.has(isoDay(day))) days.add(isoDay(day))
        return [...days].sort()
      }).pipe(Effect.orDie)

    /** Counts the tenant's uncounted closed days (all of them, or up to `limit`); whether none is left. */
    const countClosedDays = (tenantId: string, limit = Number.POSITIVE_INFINITY) =>
      Effect.gen(function*() {
        const days = yield* uncounted(tenantId)
        if (days.length > limit) return false
        yield* Effect.forEach(days, (day) => countDay(tenantId, day), { discard: true })
        return true
      })

    /**
     * A total from the counted days (the sum of `column` over the run_day_counts rows `cached` keeps)
     * and `live` (a count of the runs from the open days' start), read in one statement; undefined
     * when a day in range was found uncounted (a run of it changed meanwhile) or too many are.
     */
    const combine = (
      tenantId: string,
      from: number | undefined,
      column: "runs" | "solo",
      cached: Statement.Fragment,
      live: (boundary: Date) => Statement.Fragment
    ) =>
      Effect.gen(function*() {
        // One statement answers, with what proves it whole: every closed day from the tenant's first run (or `from`) counted, none marked since.
        const attempt = Effect.suspend(() => {
          const boundary = openFrom()
          const end = isoDay(boundary)
          const start = from === undefined ? "-infinity" : isoDay(from)
          const range = sql.and([sql`tenant_id = ${tenantId}`, sql`day < ${end}::date`, sql`day >= ${start}::date`])
          return sql`WITH first AS (
              SELECT greatest((created_at AT TIME ZONE 'UTC')::date, ${start}::date) AS day FROM runs
              WHERE tenant_id = ${tenantId} AND NOT is_dry_run ORDER BY created_at LIMIT 1)
            SELECT
              (SELECT coalesce(sum(${sql(column)}), 0) FROM run_day_counts WHERE ${range} AND ${cached})::int AS cached,
              (SELECT count(*) FROM run_day_marks WHERE ${range} AND NOT counted)::int AS dirty,
              (SELECT count(*) FROM run_day_marks m, first f WHERE m.tenant_id = ${tenantId} AND m.counted
                AND m.day >= f.day AND m.day < ${end}::date)::int AS counted,
              coalesce((SELECT greatest(0, ${end}::date - f.day) FROM first f), 0)::int AS expected,
              (${live(new Date(boundary))})::int AS live`.pipe(
            totalRows,
            Effect.map(([row]) => (row === undefined || row.dirty > 0 || row.counted !== row.expected ? undefined : row.cached + row.live)),
            Effect.orDie
          )
        })
        const total = yield* attempt
        if (total !== undefined) return total
        return (yield* countClosedDays(tenantId, INLINE_DAYS)) ? yield* attempt : undefined
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
        // Counted days are whole days: a `since` inside a day counts that day's part from the runs.
        const from = f.since === undefined ? undefined : dayStart(f.since.getTime() + DAY - 1)
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
        const [row] = yield* sql`SELECT count(*)::int AS live, 0 AS cached, 0 AS dirty, 0 AS counted, 0 AS expected FROM runs WHERE ${where}`.pipe(
          totalRows,
          Effect.orDie
        )
        return row?.live ?? 0
      })

    /** The exact number of entries of the recent-runs list: top-level runs, a chat session's runs counting once. */
    const recent = (tenantId: string) =>
      Effect.gen(function*() {
        const top = sql`tenant_id = ${tenantId} AND NOT is_dry_run AND parent_run_id IS NULL`
        // Sessions are counted from the runs (a session's runs span days); only chat runs are read, by the runs_session index.
        const total = yield* combine(tenantId, undefined, "solo", sql`true`, (boundary) =>
          sql`(SELECT count(*) FROM runs WHERE ${top} AND session_id IS NULL AND created_at >= ${boundary})
            + (SELECT count(DISTINCT session_id) FROM runs WHERE ${top} AND session_id IS NOT NULL)`)
        if (total !== undefined) {
          return total
        }
        const [row] = yield* sql`SELECT (count(*) FILTER (WHERE session_id IS NULL) + count(DISTINCT session_id))::int AS live,
          0 AS cached, 0 AS dirty, 0 AS counted, 0 AS expected FROM runs WHERE ${top}`.pipe(totalRows, Effect.orDie)
        return row?.live ?? 0
      })

    return traced("RunTotals", { forWorkflow, recent, countClosedDays })
  })
}) {}
