import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../../platform/Rows.js"
import { dropOldestDay, ensureAhead, partitionDays, partitionOf, truncateDay } from "../../../runtime/run/Partitions.js"
import { TerminalStatuses } from "../../../schemas/RunLifecycle.js"

const DAY = 86_400_000

const minRows = decodeRows("tenants", Schema.Struct({ days: Schema.NullOr(Schema.Number) }))
const dayRows = decodeRows("runs", Schema.Struct({ tenant_id: Schema.String, runs: Schema.Number, kept: Schema.Number }))

/**
 * Whole days of run history at once (runtime/run/Partitions.ts): each day partition that ended
 * longer ago than the shortest retention of any tenant is looked at, oldest first; when every run
 * in it may go (ended past its tenant's retention, not held, not the child of a run still going;
 * a running or paused run never may) the day's partitions of every run table are emptied in one
 * statement, and the oldest empty days are merged into `_low`. The runs removed, by tenant.
 * Partitions for the days ahead are made first.
 */
export const expireWholeDays = (now: number, defaultDays: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* ensureAhead(now)
    const [shortest] = yield* sql`SELECT min(coalesce((settings->>'run_retention_days')::int, ${defaultDays}))::int AS days FROM tenants`.pipe(
      minRows
    )
    const days = shortest?.days ?? defaultDays
    const at = new Date(now)
    const terminal = [...TerminalStatuses]
    const removed = new Map<string, number>()
    for (const day of yield* partitionDays) {
      if (day + DAY > now - days * DAY) break
      const rows = yield* sql.unsafe(
        `
        SELECT r.tenant_id, count(*)::int AS runs, count(*) FILTER (WHERE NOT (
          r.status = ANY($1) AND NOT r.retention_hold AND NOT coalesce(w.retention_hold, false)
          AND r.finished_at < $2::timestamptz - make_interval(days => coalesce((t.settings->>'run_retention_days')::int, $3))
          AND NOT EXISTS (SELECT 1 FROM runs p WHERE p.id = r.parent_run_id AND p.status <> ALL($1))
        ))::int AS kept
        FROM ${partitionOf("runs", day)} r LEFT JOIN workflows w ON w.id = r.workflow_id LEFT JOIN tenants t ON t.id = r.tenant_id
        GROUP BY r.tenant_id`,
        [terminal, at, defaultDays]
      ).pipe(dayRows)
      if (rows.some((r) => r.kept > 0)) continue
      const oldest = (yield* partitionDays)[0] === day
      if (rows.length > 0 && !(yield* truncateDay(day))) return removed
      for (const r of rows) removed.set(r.tenant_id, (removed.get(r.tenant_id) ?? 0) + r.runs)
      if (oldest && !(yield* dropOldestDay(day))) return removed
    }
    return removed
  }).pipe(Effect.withSpan("DayExpiry.expireWholeDays"))
