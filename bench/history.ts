/**
 * Run history at scale (BENCH_ONLY=history; issue 38, point 4). On a fresh database: the runs
 * benchmark's throughput (300 3-node runs over HTTP, 32 starts in flight) on an empty history;
 * then BENCH_HISTORY_RUNS (1,000,000) finished runs written by SQL over the last 30 days
 * (bench/HistoryData.ts) and 5,000 runs paused on a HITL approval; the throughput again two minutes later (each
 * throughput the median of BENCH_HISTORY_PASSES (5) passes); the p50
 * and p99 of the run lists (each filter), a run's detail, steps and trace, and the HITL inbox
 * (BENCH_HISTORY_REQUESTS, 200, one at a time; 50 for the trace, limited to 60 a minute); then the retention lowered from 30 to 29 days
 * and the oldest day's expiry (services/workflow/retention/DayExpiry.ts) timed while 300 runs go
 * through, and the database's size before and after.
 */
import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import pg from "pg"
import { dayStart, partitionDays, partitionOf, splitLow } from "../runtime/run/Partitions.js"
import { expireWholeDays } from "../services/workflow/retention/DayExpiry.js"
import { RunTotals } from "../services/workflow/RunTotals.js"
import { concurrentRuns } from "./Concurrent.js"
import { generateHistory } from "./HistoryData.js"
import { makePgTrace } from "./PgTrace.js"
import { threeNodeDag } from "./runs.js"
import { benchDatabase, benchPlatform, instantModel, json, percentile, publishedBenchWorkflow } from "./support.js"

const HISTORY = Number(process.env.BENCH_HISTORY_RUNS ?? 1_000_000)
const REQUESTS = Number(process.env.BENCH_HISTORY_REQUESTS ?? 200)
const PASSES = Number(process.env.BENCH_HISTORY_PASSES ?? 5)
const DAYS = 30
const DAY = 86_400_000

let database: string | undefined
const trace = makePgTrace(() => database)

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

export const historyBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  database = db.name
  const model = yield* instantModel
  const { base, token } = yield* benchPlatform({
    DATABASE_URL: db.url,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODELS: "bench-model",
    // The sweep looks once at the start; the benchmark runs its whole-day expiry itself, timed.
    RETENTION_SWEEP_SECONDS: "3600"
  })
  const { workflowId } = yield* publishedBenchWorkflow(base, token, threeNodeDag)
  const me = (yield* json(base, token, "GET", "/api/v1/auth/users/me")).user as { id: string; tenant_id: string }

  const client = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
  const query = <A>(text: string, values: ReadonlyArray<unknown> = []) =>
    Effect.promise(() => client.query(text, [...values])).pipe(Effect.map((r) => r.rows as Array<A>))
  const size = query<{ bytes: string }>("SELECT pg_database_size(current_database()) AS bytes").pipe(Effect.map((rows) => Number(rows[0].bytes)))

  const start = json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/run`, { input_params: {} }).pipe(Effect.map((r) => r.id as string))
  // The predicate of the runs_unfinished index: a count that does not read the history.
  const unfinished = query<{ n: number }>("SELECT count(*)::int AS n FROM runs WHERE status IN ('pending', 'running') AND NOT held AND NOT dormant").pipe(
    Effect.map((rows) => rows[0].n)
  )
  const throughput = (warmup: number) =>
    Effect.gen(function*() {
      const { ids, wall } = yield* concurrentRuns({ start, unfinished, trace, warmup, runs: 300, concurrency: 32 })
      const ms = (yield* query<{ ms: number }>("SELECT extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM runs WHERE id = ANY($1)", [ids]))
        .map((r) => Number(r.ms)).sort((a, b) => a - b)
      return {
        perSecond: 300 / wall,
        text: `${(300 / wall).toFixed(1)} runs/s, start -> completed p50 ${percentile(ms, 0.5).toFixed(0)} ms, p99 ${percentile(ms, 0.99).toFixed(0)} ms`
      }
    })
  // PASSES passes one after the other, their median: a single pass of 300 runs on this machine varies by 20-40%.
  const passes = (warmup: number) =>
    Effect.gen(function*() {
      const all = [yield* throughput(warmup)]
      while (all.length < PASSES) all.push(yield* throughput(0))
      const median = [...all].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(all.length / 2)]
      return {
        perSecond: median.perSecond,
        text: `${median.perSecond.toFixed(1)} runs/s (median of ${all.map((p) => p.perSecond.toFixed(1)).join(", ")}; ${median.text})`
      }
    })

  // Measured on a settled database: the history below is written in minutes (GBs at once), not over 30 days, so its
  // checkpoint and autovacuum pass before the runs are measured against it; the empty database is measured the same way.
  const settle = Effect.gen(function*() {
    yield* query("CHECKPOINT")
    const vacuuming = query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' AND datname = current_database()"
    ).pipe(Effect.map((rows) => rows[0].n))
    for (let i = 0; i < 120 && (yield* vacuuming) > 0; i++) yield* Effect.sleep("1 second")
  })
  yield* settle
  const empty = yield* passes(300)
  const onDb = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
    effect.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(db.url) })), Effect.orDie)
  const today = dayStart(Date.now())
  for (let day = today - DAY; day >= today - DAYS * DAY; day -= DAY) {
    while (!(yield* onDb(splitLow(day)))) yield* Effect.sleep("50 millis")
  }
  const t0 = performance.now()
  yield* generateHistory(client, { tenantId: me.tenant_id, workflowId, userId: me.id, runs: HISTORY, days: DAYS, pending: 5000 })
  const generated = (performance.now() - t0) / 1000
  // What the retention sweep does after an hour closes, for every hour at once: the lists' totals then sum the counted hours.
  const c0 = performance.now()
  yield* onDb(Effect.flatMap(RunTotals, (totals) => totals.countClosedHours(me.tenant_id)).pipe(Effect.provide(RunTotals.Default)))
  const counted = (performance.now() - c0) / 1000
  yield* settle
  // Minutes after the bulk write, as a history accumulated over 30 days would be: what follows 2.8 GB written at once
  // (the OS writing back dirty pages, the first autovacuum analyze of each partition) is not the history's steady cost.
  yield* Effect.sleep(`${Number(process.env.BENCH_HISTORY_QUIET_SECONDS ?? 120)} seconds`)
  yield* settle
  const full = yield* passes(100)
  const ratio = `${(full.perSecond / empty.perSecond).toFixed(2)}x`
  yield* Effect.log(`history written in ${generated.toFixed(0)} s; throughput empty: ${empty.text}; with the history: ${full.text} (${ratio})`)

  const sample = (yield* query<{ id: string }>("SELECT id FROM runs TABLESAMPLE SYSTEM (1) WHERE status = 'completed' LIMIT $1", [REQUESTS])).map((r) => r.id)
  const since = new Date(Date.now() - 7 * 86_400_000).toISOString()
  const endpoints: ReadonlyArray<[string, (i: number) => string]> = [
    ["GET /workflow/runs (recent)", () => "/api/v1/workflow/runs?limit=20"],
    ["GET /workflow/runs/history", () => "/api/v1/workflow/runs/history?page_size=20"],
    ["GET /workflow/runs/history?status=failed", () => "/api/v1/workflow/runs/history?page_size=20&status=failed"],
    ["GET /workflows/{id}/runs", () => `/api/v1/workflow/workflows/${workflowId}/runs?page_size=20`],
    ["GET /workflows/{id}/runs?status=failed", () => `/api/v1/workflow/workflows/${workflowId}/runs?page_size=20&status=failed`],
    ["GET /workflows/{id}/runs?trigger_type=webhook", () => `/api/v1/workflow/workflows/${workflowId}/runs?page_size=20&trigger_type=webhook`],
    ["GET /workflows/{id}/runs?since=7 days", () => `/api/v1/workflow/workflows/${workflowId}/runs?page_size=20&since=${since}`],
    ["GET /workflows/{id}/runs?page=50", () => `/api/v1/workflow/workflows/${workflowId}/runs?page_size=20&page=50`],
    ["GET /runs/{id}", (i) => `/api/v1/workflow/runs/${sample[i % sample.length]}`],
    ["GET /runs/{id}/steps", (i) => `/api/v1/workflow/runs/${sample[i % sample.length]}/steps`],
    ["GET /runs/{id}/trace", (i) => `/api/v1/workflow/runs/${sample[i % sample.length]}/trace`],
    ["GET /hitl/pending", () => "/api/v1/workflow/hitl/pending?page_size=20"]
  ]
  const latencies: Array<string> = []
  for (const [name, path] of endpoints) {
    for (let i = 0; i < 5; i++) yield* json(base, token, "GET", path(i))
    const times: Array<number> = []
    // Trace reads are limited to 60 a minute per workspace.
    const requests = name.endsWith("/trace") ? Math.min(REQUESTS, 50) : REQUESTS
    for (let i = 0; i < requests; i++) {
      const t = performance.now()
      yield* json(base, token, "GET", path(i))
      times.push(performance.now() - t)
    }
    times.sort((a, b) => a - b)
    latencies.push(`  ${name}: p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms (${requests})`)
    yield* Effect.log(latencies.at(-1))
  }

  // The oldest day expires (retention 30 -> 29 days) and goes whole while runs go through.
  const oldest = (yield* onDb(partitionDays))[0]
  const toExpire = (yield* query<{ n: number }>(`SELECT count(*)::int AS n FROM ${partitionOf("runs", oldest)}`))[0].n
  const before = yield* size
  yield* json(base, token, "PATCH", `/api/v1/auth/tenants/${me.tenant_id}/settings`, { run_retention_days: DAYS - 1 })
  const during = yield* Effect.fork(throughput(0).pipe(Effect.map((pass) => pass.text)))
  yield* Effect.sleep("3 seconds")
  const e0 = performance.now()
  const removed = yield* onDb(expireWholeDays(Date.now(), DAYS))
  const expired = (performance.now() - e0) / 1000
  const duringExpiry = yield* during.await.pipe(Effect.flatMap((exit) => exit))
  const gone = [...removed.values()].reduce((a, b) => a + b, 0)
  const after = yield* size
  return [
    `run history: ${HISTORY.toLocaleString("en")} finished 3-node runs over ${DAYS} days, written in ${generated.toFixed(0)} s, its hours counted in ${
      counted.toFixed(1)
    } s`,
    `  RESULT_HISTORY_THROUGHPUT empty: ${empty.text}; with the history: ${full.text}; ratio ${ratio}`,
    ...latencies,
    `  RESULT_HISTORY_EXPIRY the oldest day (${toExpire.toLocaleString("en")} runs; ${gone.toLocaleString("en")} removed) dropped in ${
      (expired * 1000).toFixed(0)
    } ms; runs meanwhile: ${duringExpiry}`,
    `  database size: ${mb(before)} before expiry, ${mb(after)} after`
  ]
}))
