/**
 * Bytes stored per completed run (BENCH_ONLY=storage): BENCH_STORAGE_RUNS (1,000) runs of the
 * runs benchmark's 3-node DAG (each node one model call answering "ok": the model's own text is
 * 2 bytes a node), BENCH_CONCURRENCY (16) in flight, on a fresh database. Then, for every table
 * that grew, its size on disk over the runs (heap with TOAST, and its indexes, after a VACUUM so
 * that dead rows of updated rows are counted as the free space they become) and the bytes of its
 * live rows (`pg_column_size` of each row), per run. BENCH_STORAGE_SAMPLE=<file> writes one run's
 * rows there as JSON.
 */
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import pg from "pg"
import { threeNodeDag } from "./runs.js"
import { benchDatabase, benchPlatform, instantModel, json, publishedBenchWorkflow } from "./support.js"

const RUNS = Number(process.env.BENCH_STORAGE_RUNS ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)

interface TableSize {
  readonly table: string
  readonly heap: number
  readonly indexes: number
  readonly rows: number
}

const sizes = (client: pg.Client) =>
  Effect.promise(() =>
    client.query<{ table: string; heap: string; indexes: string }>(`
      SELECT c.relname AS table, pg_table_size(c.oid) AS heap, pg_indexes_size(c.oid) AS indexes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')`)
  ).pipe(Effect.map((r) => new Map(r.rows.map((row) => [row.table, { heap: Number(row.heap), indexes: Number(row.indexes) }]))))

const rowBytes = (client: pg.Client, table: string) =>
  Effect.promise(() => client.query<{ bytes: string | null }>(`SELECT sum(pg_column_size(t.*)) AS bytes FROM "${table}" t`)).pipe(
    Effect.map((r) => Number(r.rows[0]?.bytes ?? 0))
  )

export const storageBench = Effect.scoped(Effect.gen(function*() {
  const db = yield* benchDatabase
  const model = yield* instantModel
  const { base, token } = yield* benchPlatform({ DATABASE_URL: db.url, LLM_BASE_URL: model.baseUrl, LLM_MODELS: "bench-model" })
  const { workflowId } = yield* publishedBenchWorkflow(base, token, threeNodeDag)

  const client = new pg.Client({ connectionString: db.url })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
  const query = (text: string) => Effect.promise(() => client.query(text))
  yield* query("VACUUM")
  const before = yield* sizes(client)
  const start = json(base, token, "POST", `/api/v1/workflow/workflows/${workflowId}/run`, { input_params: {} }).pipe(Effect.map((r) => r.id as string))
  yield* Effect.forEach(Array.from({ length: RUNS }), () => start, { concurrency: CONCURRENCY, discard: true })
  const unfinished = query(`SELECT count(*)::int AS n FROM runs WHERE status NOT IN ('completed', 'failed', 'cancelled')`).pipe(
    Effect.map((r) => (r.rows[0] as { n: number }).n)
  )
  while ((yield* unfinished) > 0) yield* Effect.sleep("100 millis")
  // Spans are written by the run's own commits; give the 250 ms span flush of anything else its turn.
  yield* Effect.sleep("1 second")
  yield* query("VACUUM")
  const after = yield* sizes(client)
  const grown: Array<TableSize> = []
  for (const [table, size] of after) {
    const was = before.get(table) ?? { heap: 0, indexes: 0 }
    const heap = size.heap - was.heap
    const indexes = size.indexes - was.indexes
    if (heap <= 0 && indexes <= 0) continue
    grown.push({ table, heap, indexes, rows: yield* rowBytes(client, table) })
  }
  const sample = process.env.BENCH_STORAGE_SAMPLE
  if (sample !== undefined) {
    // One run's rows as stored, to see what its bytes are.
    const [run] = (yield* query("SELECT id FROM runs ORDER BY created_at DESC LIMIT 1")).rows as Array<{ id: string }>
    const rows: Record<string, unknown> = {}
    for (const table of ["runs", "run_steps", "run_events", "run_spans"]) {
      rows[table] = (yield* query(`SELECT * FROM ${table} WHERE ${table === "runs" ? "id" : "run_id"} = '${run.id}'`)).rows
    }
    writeFileSync(sample, JSON.stringify(rows, null, 1))
  }
  grown.sort((a, b) => b.heap + b.indexes - a.heap - a.indexes)
  const perRun = (n: number) => (n / RUNS).toFixed(0)
  const total = grown.reduce((sum, t) => sum + t.heap + t.indexes, 0)
  const totalRows = grown.reduce((sum, t) => sum + t.rows, 0)
  return [
    `storage: ${RUNS} completed 3-node runs (${CONCURRENCY} in flight), bytes per run by table`,
    `  RESULT_BYTES_PER_RUN ${perRun(total)} on disk (heap+TOAST+indexes, after VACUUM); ${perRun(totalRows)} in live rows`,
    ...grown.map((t) => `  ${t.table}: heap ${perRun(t.heap)}, indexes ${perRun(t.indexes)}, rows ${perRun(t.rows)}`)
  ]
}))
