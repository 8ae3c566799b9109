import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { PreparedSql } from "../../platform/PreparedSql.js"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { presentOnly } from "../../schemas/ContractFields.js"
import type { Principal } from "../../schemas/Principal.js"
import { type Run, RUN_FIELDS, type Step, STEP_FIELDS } from "../../schemas/Run.js"
import { isRetryable } from "../../schemas/RunLifecycle.js"
import { RUN_HEADER, RunRow as RunRowSchema, StepRow } from "../../schemas/RunRow.js"
import { RunTotals } from "./RunTotals.js"

/** The columns the run API reads of a run row. */
export const RunRow = RunRowSchema.pick(
  ...RUN_HEADER,
  "tenant_id",
  "input_params",
  "output",
  "named_outputs",
  "error",
  "parent_run_id",
  "session_id",
  "created_at",
  "started_at",
  "finished_at",
  "scheduled_fire_time",
  "skip_reason",
  "retention_hold"
)
export type RunRow = typeof RunRow.Type

const runRows = decodeRows("runs", RunRow)
/** With `created_at` as text too: microseconds, which a Date would round away (the history's cursor needs them). */
const HistoryRow = Schema.extend(RunRow, Schema.Struct({ created_at_key: Schema.String }))
const historyRows = decodeRows("runs", HistoryRow)

export const toRun = (row: RunRow): Run => presentOnly(row, RUN_FIELDS)

const stepRows = decodeRows("run_steps", StepRow)

export const toStep = ({ id, ...row }: StepRow): Step => ({
  step_id: id,
  ...presentOnly(row, STEP_FIELDS),
  ...(row.error_kind === null ? {} : { retryable: isRetryable(row.error_kind) })
})

/** Per-model token usage summed over a run's steps. */
export const sumUsage = (steps: ReadonlyArray<StepRow>) => {
  const total: Record<string, { prompt_tokens: number; completion_tokens: number; total_tokens: number }> = {}
  for (const s of steps) {
    for (const [model, u] of Object.entries(s.token_usage)) {
      const t = total[model] ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }
      total[model] = {
        prompt_tokens: t.prompt_tokens + u.prompt_tokens,
        completion_tokens: t.completion_tokens + u.completion_tokens,
        total_tokens: t.total_tokens + u.total_tokens
      }
    }
  }
  return total
}

// The recent list's walk ($1 tenant; then after ($2, $3), leaving out the sessions in $4): plain index walks. The first
// batch's limit is written in its text, not a parameter: PostgreSQL then soon keeps one generic plan of it instead of
// planning the walk over every partition each time (6 ms of 7 at 40 partitions).
const FIRST_BATCHES = [50, 200, 1_000] as const
const AFTER_BATCH = 1_000
const topRuns = (batch: number) =>
  `SELECT *, created_at::text AS created_at_key FROM runs WHERE tenant_id = $1 AND NOT is_dry_run AND parent_run_id IS NULL
  ORDER BY created_at DESC, id DESC LIMIT ${batch}`
const TOP_RUNS_AFTER = `SELECT *, created_at::text AS created_at_key FROM runs WHERE tenant_id = $1 AND NOT is_dry_run AND parent_run_id IS NULL
  AND (created_at, id) < ($2::timestamptz, $3::uuid) AND (session_id IS NULL OR session_id <> ALL ($4::uuid[]))
  ORDER BY created_at DESC, id DESC LIMIT ${AFTER_BATCH}`
const SESSION_RUNS = `SELECT session_id::text AS session_id, count(*)::int AS runs FROM runs
  WHERE tenant_id = $1 AND session_id = ANY ($2::uuid[]) AND NOT is_dry_run AND parent_run_id IS NULL GROUP BY session_id`
/**
 * A page far down the list ($1 tenant, $2 limit, $3 offset) in one statement: the entries before it
 * are skipped inside PostgreSQL (an index walk probing for a later run of each session), not read
 * out batch by batch. The same order as the walk's: a session's latest run stands for it.
 */
const RECENT_DEEP = `
  SELECT r.*, CASE WHEN r.session_id IS NULL THEN 1 ELSE (SELECT count(*)::int FROM runs s
    WHERE s.tenant_id = r.tenant_id AND s.session_id = r.session_id AND NOT s.is_dry_run AND s.parent_run_id IS NULL) END AS run_count
  FROM runs r WHERE r.tenant_id = $1 AND NOT r.is_dry_run AND r.parent_run_id IS NULL
    AND (r.session_id IS NULL OR NOT EXISTS (SELECT 1 FROM runs n
      WHERE n.tenant_id = r.tenant_id AND n.session_id = r.session_id AND NOT n.is_dry_run AND n.parent_run_id IS NULL
        AND (n.created_at > r.created_at OR (n.created_at = r.created_at AND n.id > r.id))))
  ORDER BY r.created_at DESC, r.id DESC LIMIT $2 OFFSET $3`
const deepRows = decodeRows("runs", Schema.extend(RunRow, Schema.Struct({ run_count: Schema.Number })))
/** Pages ending past this many entries are read by RECENT_DEEP. */
const WALKED = 1_000

/** What the walk reads of a row before it is kept (kept rows only are decoded). */
interface WalkedRow {
  readonly id: string
  readonly session_id: string | null
  readonly created_at_key: string
}
const sessionRunRows = decodeRows("runs", Schema.Struct({ session_id: Schema.String, runs: Schema.Number }))

/** Run reads, scoped to the caller's tenant. */
export class RunsRepo extends Effect.Service<RunsRepo>()("RunsRepo", {
  dependencies: [RunTotals.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prepared = yield* PreparedSql
    const totals = yield* RunTotals

    const get = (scope: Principal, id: string) =>
      sql`SELECT * FROM runs WHERE tenant_id = ${scope.tenantId} AND id = ${id}`.pipe(runRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const steps = (runId: string) =>
      sql`SELECT * FROM run_steps WHERE run_id = ${runId} ORDER BY position, started_at NULLS LAST`.pipe(stepRows).pipe(Effect.orDie)

    const listForWorkflow = (scope: Principal, workflowId: string, f: {
      limit: number
      offset: number
      trigger_type?: string | undefined
      status?: string | undefined
      since?: Date | undefined
    }) => {
      const where = sql.and([
        sql`tenant_id = ${scope.tenantId}`,
        sql`workflow_id = ${workflowId}`,
        sql`NOT is_dry_run`,
        ...(f.trigger_type !== undefined ? [sql`trigger_type = ${f.trigger_type}`] : []),
        ...(f.status !== undefined ? [sql`status = ${f.status}`] : []),
        ...(f.since !== undefined ? [sql`created_at >= ${f.since}`] : [])
      ])
      return Effect.all([
        sql`SELECT * FROM runs WHERE ${where} ORDER BY created_at DESC, id LIMIT ${f.limit} OFFSET ${f.offset}`.pipe(runRows, Effect.orDie),
        totals.forWorkflow(scope.tenantId, workflowId, f)
      ], { concurrency: 2 }).pipe(Effect.map(([rows, total]) => ({ rows, total })))
    }

    /**
     * Recent top-level runs; the runs of one chat session fold into its latest: walking newest
     * first, a session's first run met is its latest, and the walk leaves its other runs out in the
     * index scan. It reads the page and the entries before it, not the history; the total sums
     * counted days (RunTotals).
     */
    const recentPage = (tenantId: string, limit: number, offset: number) =>
      Effect.gen(function*() {
        const want = offset + limit
        const first = FIRST_BATCHES.find((b) => b >= want) ?? FIRST_BATCHES[FIRST_BATCHES.length - 1]
        const kept: Array<WalkedRow> = []
        const sessions = new Set<string>()
        let entries = 0
        for (let after: WalkedRow | undefined; entries < want;) {
          const rows = yield* (after === undefined
            ? prepared.query<WalkedRow>(topRuns(first), [tenantId])
            : prepared.query<WalkedRow>(TOP_RUNS_AFTER, [tenantId, after.created_at_key, after.id, [...sessions]])).pipe(Effect.orDie)
          for (const row of rows) {
            if (row.session_id !== null) {
              if (sessions.has(row.session_id)) continue
              sessions.add(row.session_id)
            }
            if (entries >= offset && entries < want) kept.push(row)
            entries++
          }
          if (rows.length < (after === undefined ? first : AFTER_BATCH)) break
          after = rows.at(-1)
        }
        const page = yield* historyRows(Effect.succeed(kept))
        const inPage = page.flatMap((r) => (r.session_id === null ? [] : [r.session_id]))
        const counts = inPage.length === 0
          ? new Map<string, number>()
          : new Map((yield* prepared.query(SESSION_RUNS, [tenantId, inPage]).pipe(sessionRunRows, Effect.orDie)).map((r) => [r.session_id, r.runs]))
        return page.map(({ created_at_key: _, ...r }) => ({ ...r, run_count: r.session_id === null ? 1 : counts.get(r.session_id) ?? 1 }))
      })

    // A page past the end reads nothing: an offset far beyond the list costs its total only.
    const recent = (scope: Principal, limit: number, offset: number) =>
      offset + limit <= WALKED
        ? Effect.all([recentPage(scope.tenantId, limit, offset), totals.recent(scope.tenantId)], { concurrency: 2 }).pipe(
          Effect.map(([rows, total]) => ({ rows, total }))
        )
        : Effect.gen(function*() {
          const total = yield* totals.recent(scope.tenantId)
          const rows = offset >= total ? [] : yield* prepared.query(RECENT_DEEP, [scope.tenantId, limit, offset]).pipe(deepRows, Effect.orDie)
          return { rows, total }
        })

    /** A page of the run history after `after` (created_at, id), newest or oldest first; one row more than asked tells whether more follow. */
    const history = (scope: Principal, f: {
      readonly status?: string | undefined
      readonly trigger_type?: string | undefined
      readonly workflow_id?: string | undefined
      readonly parent_run_id?: string | undefined
      readonly since?: Date | undefined
      readonly until?: Date | undefined
      readonly after?: { readonly createdAt: string; readonly id: string } | undefined
      readonly order: "newest" | "oldest"
      readonly limit: number
    }) =>
      sql`SELECT *, created_at::text AS created_at_key FROM runs WHERE ${
        sql.and([
          sql`tenant_id = ${scope.tenantId}`,
          sql`NOT is_dry_run`,
          ...(f.status !== undefined ? [sql`status = ${f.status}`] : []),
          ...(f.trigger_type !== undefined ? [sql`trigger_type = ${f.trigger_type}`] : []),
          ...(f.workflow_id !== undefined ? [sql`workflow_id = ${f.workflow_id}`] : []),
          ...(f.parent_run_id !== undefined ? [sql`parent_run_id = ${f.parent_run_id}`] : []),
          ...(f.since !== undefined ? [sql`created_at >= ${f.since}`] : []),
          ...(f.until !== undefined ? [sql`created_at < ${f.until}`] : []),
          ...(f.after !== undefined
            ? [
              f.order === "newest"
                ? sql`(created_at, id) < (${f.after.createdAt}::timestamptz, ${f.after.id}::uuid)`
                : sql`(created_at, id) > (${f.after.createdAt}::timestamptz, ${f.after.id}::uuid)`
            ]
            : [])
        ])
      } ORDER BY ${f.order === "newest" ? sql`created_at DESC, id DESC` : sql`created_at ASC, id ASC`} LIMIT ${f.limit + 1}`.pipe(historyRows, Effect.orDie)

    return traced("RunsRepo", { get, steps, listForWorkflow, recent, history })
  })
}) {}
