import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { createPartitions, dayStart, partitionDays, storedColumns } from "./Partitions.js"

/** A table of another service that grows with use, partitioned by day the way the run tables are. */
export interface PartitionedRecords {
  readonly name: string
  /** A version-7 id column: the table's own id, or the id of what its rows belong to (so they stay together). */
  readonly key: string
  readonly constraints: ReadonlyArray<string>
  /** Index statements, after CREATE. */
  readonly indexes: ReadonlyArray<string>
  /** Sequences a column of the table owns (a bigserial): they go with the column to the rebuilt table. */
  readonly sequences?: ReadonlyArray<{ readonly sequence: string; readonly column: string }>
}

const names = decodeRows("pg_catalog", Schema.Struct({ name: Schema.String }))

/**
 * Rebuilds `table` in place as a table partitioned by day on its key, with the run tables' days
 * (runtime/run/Partitions.ts; partition maintenance then makes its days ahead with theirs): renamed,
 * its keys and indexes dropped, a partitioned table of the same columns (defaults, checks,
 * generated columns) made in its name, its rows copied (ids of earlier releases mostly land in
 * `_low` and `_high`), then its keys and indexes built per partition. Done once: a partitioned
 * table is left as it is.
 */
export const partitionInPlace = (table: PartitionedRecords) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [done] = yield* sql`SELECT relname AS name FROM pg_class WHERE relname = ${table.name} AND relkind = 'p'`.pipe(names)
    if (done !== undefined) return
    const days = yield* partitionDays
    const old = `${table.name}_unpartitioned`
    yield* sql.unsafe(`ALTER TABLE ${table.name} RENAME TO ${old}`)
    const constraints = yield* sql`SELECT conname AS name FROM pg_constraint WHERE conrelid = ${old}::regclass AND contype IN ('p', 'u', 'f')`.pipe(names)
    for (const c of constraints) yield* sql.unsafe(`ALTER TABLE ${old} DROP CONSTRAINT ${c.name}`)
    const indexes = yield* sql`SELECT indexname AS name FROM pg_indexes WHERE tablename = ${old}`.pipe(names)
    for (const i of indexes) yield* sql.unsafe(`DROP INDEX ${i.name}`)
    for (const s of table.sequences ?? []) yield* sql.unsafe(`ALTER SEQUENCE ${s.sequence} OWNED BY NONE`)
    yield* sql.unsafe(
      `CREATE TABLE ${table.name} (LIKE ${old} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED) PARTITION BY RANGE (${table.key})`
    )
    yield* createPartitions(table, dayStart(Date.now()), days)
    const columns = yield* storedColumns(old)
    yield* sql.unsafe(`INSERT INTO ${table.name} (${columns}) SELECT ${columns} FROM ${old}`)
    yield* sql.unsafe(`DROP TABLE ${old}`)
    for (const s of table.sequences ?? []) yield* sql.unsafe(`ALTER SEQUENCE ${s.sequence} OWNED BY ${table.name}.${s.column}`)
    for (const constraint of table.constraints) yield* sql.unsafe(`ALTER TABLE ${table.name} ADD CONSTRAINT ${constraint}`)
    for (const index of table.indexes) yield* sql.unsafe(`CREATE ${index}`)
  })
