import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { uuidV7Floor } from "../../platform/TimedId.js"

/**
 * The run tables, partitioned by day on the run's id (a version-7 UUID: its first 48 bits are
 * the run's creation time; platform/TimedId.ts). Every table of a run keeps the run's rows in the
 * partition of the run's day, whatever the time of the row, so a run's events stay together and
 * in order across a day's end, and a day of history goes as one DROP of each table's partition.
 *
 * Each table is covered from end to end, so no id ever lacks a partition: `_low` holds every id
 * before the first day (ids of earlier releases, and days whose partitions were dropped), one
 * partition per day from there, `_future` up to the year 2100 (ids of any earlier UUID version
 * that fall there; split a day at a time as days come) and `_high` past it.
 */
export interface RunTable {
  readonly name: string
  readonly key: "id" | "run_id"
  readonly constraints: ReadonlyArray<string>
  readonly indexes: ReadonlyArray<string>
}

export const RUN_TABLES: ReadonlyArray<RunTable> = [
  {
    name: "runs",
    key: "id",
    constraints: ["runs_pkey PRIMARY KEY (id)", "runs_workflow_id_fkey FOREIGN KEY (workflow_id) REFERENCES workflows(id) ON DELETE CASCADE"],
    indexes: [
      "runs_workflow ON runs (tenant_id, workflow_id, created_at DESC)",
      "runs_history ON runs (tenant_id, created_at DESC, id DESC) WHERE NOT is_dry_run",
      "runs_history_status ON runs (tenant_id, status, created_at DESC, id DESC) WHERE NOT is_dry_run",
      "runs_schedule_active ON runs (workflow_id) WHERE scheduled_fire_time IS NOT NULL AND status IN ('pending', 'running', 'paused')",
      "runs_children ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL",
      "runs_unfinished ON runs (updated_at) WHERE status IN ('pending', 'running') AND NOT held AND NOT dormant",
      "runs_woken ON runs (id) WHERE wake_seq > wake_done",
      "runs_finished ON runs (tenant_id, finished_at) WHERE finished_at IS NOT NULL",
      "runs_session ON runs (tenant_id, session_id, created_at DESC) WHERE session_id IS NOT NULL"
    ]
  },
  {
    name: "run_steps",
    key: "run_id",
    constraints: ["run_steps_run_id_node_id_key UNIQUE (run_id, node_id)"],
    indexes: []
  },
  {
    name: "run_events",
    key: "run_id",
    constraints: ["run_events_pkey PRIMARY KEY (run_id, seq)"],
    indexes: []
  },
  { name: "run_spans", key: "run_id", constraints: ["run_spans_pkey PRIMARY KEY (run_id, span_id)"], indexes: [] },
  {
    name: "hitl_requests",
    key: "run_id",
    constraints: ["hitl_requests_pkey PRIMARY KEY (run_id, id)", "hitl_requests_run_id_node_id_key UNIQUE (run_id, node_id)"],
    indexes: ["hitl_requests_id ON hitl_requests (id)", "hitl_pending ON hitl_requests (tenant_id, status, created_at)"]
  },
  {
    name: "run_waits",
    key: "run_id",
    constraints: ["run_waits_pkey PRIMARY KEY (run_id, node_id)"],
    indexes: ["run_waits_due ON run_waits (deadline) WHERE resolved_at IS NULL AND deadline IS NOT NULL"]
  }
]

const DAY = 86_400_000
/** The partitions made ahead of today. */
export const DAYS_AHEAD = 7
const HIGH = uuidV7Floor(Date.UTC(2100, 0, 1))

export const dayStart = (at: number) => Math.floor(at / DAY) * DAY
const dayName = (day: number) => new Date(day).toISOString().slice(0, 10).replace(/-/g, "")
const bound = (day: number) => `'${uuidV7Floor(day)}'`
export const partitionOf = (table: string, day: number) => `${table}_p${dayName(day)}`

const nameRows = decodeRows("pg_class", Schema.Struct({ name: Schema.String }))
const lockRows = decodeRows("pg_locks", Schema.Struct({ locked: Schema.Boolean }))

const isCode = (code: string) => (e: unknown) => e instanceof SqlError && (e.cause as { readonly code?: unknown } | undefined)?.code === code

/**
 * `change` in a transaction that holds the partition maintenance lock (one process at a time;
 * another gives up at once), having taken every table lock it needs first (`locks`; each lock
 * of a partitioned table covers its partitions), in ACCESS EXCLUSIVE mode: a partition's detach,
 * attach and drop take that lock even on the tables their foreign keys reference. Taking them
 * one by one as the statements went let the change hold one table while it waited for another
 * that a request held while waiting for the first: a deadlock PostgreSQL broke after
 * deadlock_timeout (1 s) by failing the request, seen at midnight beside a publish.
 *
 * Taking them all may wait at most 300 ms in all, well before any deadlock_timeout of a request
 * waiting for one already taken, so the change is the one that gives up; after that it waits for
 * nothing. False when it did nothing (another process at it, or the locks not had in time): the
 * next sweep tries again.
 */
const maintenance = <A, E, R, E2, R2>(
  locks: Effect.Effect<ReadonlyArray<string>, E2, R2>,
  change: Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(Effect.gen(function*() {
      const [lock] = yield* sql`SELECT pg_try_advisory_xact_lock(3800038) AS locked`.pipe(lockRows)
      if (lock?.locked !== true) return false
      const tables = yield* locks
      yield* sql`SET LOCAL statement_timeout = '300ms'`
      if (tables.length > 0) yield* sql.unsafe(`LOCK TABLE ${tables.join(", ")} IN ACCESS EXCLUSIVE MODE`)
      yield* sql`SET LOCAL statement_timeout TO DEFAULT`
      yield* sql`SET LOCAL lock_timeout = '200ms'`
      yield* change
      return true
    })).pipe(
      // The locks not had in time (57014, the 300 ms), or one more not had within 200 ms (55P03): nothing changed.
      Effect.catchIf((e) => isCode("57014")(e) || isCode("55P03")(e), () => Effect.succeed(false))
    )
  })

/**
 * `tables` and the tables their foreign keys reference, referenced ones first: a request reads the
 * AI Employee before it writes its runs.
 */
const withReferenced = (tables: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (tables.length === 0) return tables
    const sql = yield* SqlClient.SqlClient
    const referenced = yield* sql`SELECT DISTINCT confrelid::regclass::text AS name FROM pg_constraint
      WHERE contype = 'f' AND conrelid::regclass::text IN ${sql.in(tables)} AND confrelid::regclass::text NOT IN ${sql.in(tables)}
      ORDER BY 1`.pipe(nameRows)
    return [...referenced.map((r) => r.name), ...tables]
  })

/**
 * Every table partitioned this way: the run tables, and other services' records that grow with
 * use (`partitionInPlace`), found by their `_future` partition. Their day partitions are made
 * with the run tables'; only the run tables' are emptied and dropped by expiry, so another table
 * keeps days the run tables merged into `_low` (a split skips a table that has the day).
 */
const partitionedTables = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`SELECT c.relname AS name, pg_get_partkeydef(c.oid) AS key FROM pg_partitioned_table p
    JOIN pg_class c ON c.oid = p.partrelid WHERE to_regclass(c.relname || '_future') IS NOT NULL ORDER BY c.relname`.pipe(
    decodeRows("pg_partitioned_table", Schema.Struct({ name: Schema.String, key: Schema.String }))
  )
  return rows.flatMap((r) => {
    const key = /^RANGE \((\w+)\)$/.exec(r.key)?.[1]
    return key === undefined ? [] : [{ name: r.name, key }]
  })
})

/** What a split locks: every partitioned table, and what their foreign keys reference. */
const everyPartitioned = partitionedTables.pipe(Effect.flatMap((tables) => withReferenced(tables.map((t) => t.name))))

/** A table's columns that take a value (generated ones aside), quoted, in order: what a move of rows copies. */
export const storedColumns = (table: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`SELECT attname AS name FROM pg_attribute WHERE attrelid = ${table}::regclass AND attnum > 0 AND NOT attisdropped
      AND attgenerated = '' ORDER BY attnum`.pipe(nameRows, Effect.map((rows) => rows.map((c) => `"${c.name}"`).join(", ")))
  )

const presentRows = decodeRows("pg_class", Schema.Struct({ present: Schema.Boolean }))

const hasPartition = (name: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`SELECT to_regclass(${name}) IS NOT NULL AS present`.pipe(presentRows, Effect.map((rows) => rows[0]?.present === true))
  )

/** The days that have a partition of `runs`, oldest first (the other tables have the same). */
export const partitionDays = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'runs'::regclass`.pipe(nameRows)
  return rows.flatMap((r) => {
    const m = /^runs_p(\d{4})(\d{2})(\d{2})$/.exec(r.name)
    return m === null ? [] : [Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))]
  }).sort((a, b) => a - b)
})

/**
 * A partitioned table's first partitions: `_low` before `today`, a day each up to `DAYS_AHEAD`
 * after (or the days the run tables have, when given), then `_future` and `_high`.
 */
export const createPartitions = (table: Pick<RunTable, "name">, today: number, days: ReadonlyArray<number> = []) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const first = days[0] ?? today
    const last = days.at(-1) ?? today + DAYS_AHEAD * DAY
    yield* sql.unsafe(`CREATE TABLE ${table.name}_low PARTITION OF ${table.name} FOR VALUES FROM (MINVALUE) TO (${bound(first)})`)
    for (let day = first; day <= last; day += DAY) {
      yield* sql.unsafe(`CREATE TABLE ${partitionOf(table.name, day)} PARTITION OF ${table.name} FOR VALUES FROM (${bound(day)}) TO (${bound(day + DAY)})`)
    }
    yield* sql.unsafe(`CREATE TABLE ${table.name}_future PARTITION OF ${table.name} FOR VALUES FROM (${bound(last + DAY)}) TO ('${HIGH}')`)
    yield* sql.unsafe(`CREATE TABLE ${table.name}_high PARTITION OF ${table.name} FOR VALUES FROM ('${HIGH}') TO (MAXVALUE)`)
  })

/**
 * Detaches `source` (`_future` or `_low`) from `table`, makes `day`'s partition and moves into it
 * the rows of `source` that `moving` selects; the caller attaches `source` again past the day.
 */
const carveDay = (table: { readonly name: string; readonly key: string }, source: string, day: number, moving: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`ALTER TABLE ${table.name} DETACH PARTITION ${source}`)
    yield* sql.unsafe(`CREATE TABLE ${partitionOf(table.name, day)} PARTITION OF ${table.name} FOR VALUES FROM (${bound(day)}) TO (${bound(day + DAY)})`)
    const columns = yield* storedColumns(table.name)
    yield* sql.unsafe(`WITH moved AS (DELETE FROM ${source} WHERE ${moving} RETURNING *)
      INSERT INTO ${table.name} (${columns}) SELECT ${columns} FROM moved`)
  })

/**
 * Gives `day` (the first day `_future` covers) its own partition in every run table, in one
 * transaction: `_future` is detached, the day's partition made, the day's few rows moved to it,
 * and `_future` attached again past the day (its check constraint spares the scan).
 */
export const splitFuture = (day: number) =>
  maintenance(
    everyPartitioned,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const days = yield* partitionDays
      if (days.includes(day) || (days.length > 0 && days.at(-1) !== day - DAY)) return
      for (const table of yield* partitionedTables) {
        if (yield* hasPartition(partitionOf(table.name, day))) continue
        const future = `${table.name}_future`
        yield* carveDay(table, future, day, `${table.key} < ${bound(day + DAY)}`)
        yield* sql.unsafe(`ALTER TABLE ${future} DROP CONSTRAINT IF EXISTS ${future}_range`)
        yield* sql.unsafe(`ALTER TABLE ${future} ADD CONSTRAINT ${future}_range CHECK (${table.key} >= ${bound(day + DAY)} AND ${table.key} < '${HIGH}')`)
        yield* sql.unsafe(`ALTER TABLE ${table.name} ATTACH PARTITION ${future} FOR VALUES FROM (${bound(day + DAY)}) TO ('${HIGH}')`)
      }
    })
  )

/**
 * Gives `day` (the day just before the first day partition) its own partition, taking it from
 * `_low` the way `splitFuture` takes a day from `_future`: history written for past days (the
 * history benchmark) and tests of expiry.
 */
export const splitLow = (day: number) =>
  maintenance(
    everyPartitioned,
    Effect.gen(function*() {
      const days = yield* partitionDays
      if (days.includes(day) || days[0] !== day + DAY) return
      for (const table of yield* partitionedTables) {
        if (yield* hasPartition(partitionOf(table.name, day))) continue
        yield* carveDay(table, `${table.name}_low`, day, `${table.key} >= ${bound(day)}`)
        yield* lowBelow(table, day)
      }
    })
  )

/** `_low` attached again below `day`, with the check that spares its scan. */
const lowBelow = (table: { readonly name: string; readonly key: string }, day: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const low = `${table.name}_low`
    yield* sql.unsafe(`ALTER TABLE ${low} DROP CONSTRAINT IF EXISTS ${low}_range`)
    yield* sql.unsafe(`ALTER TABLE ${low} ADD CONSTRAINT ${low}_range CHECK (${table.key} < ${bound(day)})`)
    yield* sql.unsafe(`ALTER TABLE ${table.name} ATTACH PARTITION ${low} FOR VALUES FROM (MINVALUE) TO (${bound(day)})`)
  })

/**
 * Empties `day`'s partition of every run table at once (its rows all expired; the partition stays,
 * empty, until it is the oldest). TRUNCATE fires no row trigger: the run counts of the hours its
 * runs were created on (the day, or a neighbour: a schedule's run carries its fire time) are marked
 * uncounted in the same transaction (run migration 0011).
 */
export const truncateDay = (day: number) =>
  maintenance(
    Effect.succeed(RUN_TABLES.map((t) => partitionOf(t.name, day))),
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`TRUNCATE ${RUN_TABLES.map((t) => partitionOf(t.name, day)).join(", ")}`)
      const [from, to] = [new Date(day - DAY), new Date(day + 2 * DAY)]
      yield* sql`UPDATE run_hour_marks SET version = version + 1, counted = false WHERE hour >= ${from} AND hour < ${to}`
      yield* sql`DELETE FROM run_hour_counts WHERE hour >= ${from} AND hour < ${to}`
    })
  )

/** Partitions up to `DAYS_AHEAD` days after `now`'s day (stops when another process is at it). */
export const ensureAhead = (now: number) =>
  Effect.gen(function*() {
    for (;;) {
      const days = yield* partitionDays
      const next = (days.at(-1) ?? dayStart(now) - DAY) + DAY
      if (next > dayStart(now) + DAYS_AHEAD * DAY || !(yield* splitFuture(next))) return
    }
  })

/**
 * Drops the oldest day's partition of every run table and extends `_low` over the day, in one
 * transaction, so that its range never goes uncovered. The caller has checked that everything in
 * it may go.
 */
export const dropOldestDay = (day: number) =>
  maintenance(
    withReferenced(RUN_TABLES.map((t) => t.name)),
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      if ((yield* partitionDays)[0] !== day) return
      for (const table of RUN_TABLES) {
        yield* sql.unsafe(`DROP TABLE ${partitionOf(table.name, day)}`)
        yield* sql.unsafe(`ALTER TABLE ${table.name} DETACH PARTITION ${table.name}_low`)
        yield* lowBelow(table, day + DAY)
      }
    })
  )
