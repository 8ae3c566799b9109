import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../../platform/Rows.js"
import { createPartitions, dayStart, RUN_TABLES } from "../Partitions.js"

const names = decodeRows("pg_catalog", Schema.Struct({ name: Schema.String }))

/**
 * The run tables become partitioned by day on the run's id (issue 38; runtime/run/Partitions.ts).
 * Each table is rebuilt in place: renamed, its indexes and keys dropped, a partitioned table of the
 * same columns made in its name with its first partitions, its rows copied (each to the partition
 * of its id: ids of earlier releases mostly to `_low` and `_high`), then its keys and indexes
 * built per partition. Removing a run removes its whole journal by trigger, HITL requests and
 * waits included (partitions do not carry those foreign keys).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [done] = yield* sql`SELECT relname AS name FROM pg_class WHERE relname = 'runs' AND relkind = 'p'`.pipe(names)
  if (done !== undefined) return
  const today = dayStart(Date.now())
  yield* sql`DROP TRIGGER IF EXISTS runs_journal_cleanup ON runs`
  const tables = RUN_TABLES.map((t) => t.name)
  const foreign = yield* sql`SELECT conrelid::regclass::text AS name, conname AS constraint FROM pg_constraint
    WHERE contype = 'f' AND confrelid::regclass::text IN ${sql.in(tables)}`.pipe(
    decodeRows("pg_constraint", Schema.Struct({ name: Schema.String, constraint: Schema.String }))
  )
  for (const fk of foreign) yield* sql.unsafe(`ALTER TABLE ${fk.name} DROP CONSTRAINT ${fk.constraint}`)
  for (const table of RUN_TABLES) {
    const old = `${table.name}_unpartitioned`
    yield* sql.unsafe(`ALTER TABLE ${table.name} RENAME TO ${old}`)
    const constraints = yield* sql`SELECT conname AS name FROM pg_constraint
      WHERE conrelid = ${old}::regclass AND contype IN ('p', 'u', 'f')`.pipe(names)
    for (const c of constraints) yield* sql.unsafe(`ALTER TABLE ${old} DROP CONSTRAINT ${c.name}`)
    const indexes = yield* sql`SELECT indexname AS name FROM pg_indexes WHERE tablename = ${old}`.pipe(names)
    for (const i of indexes) yield* sql.unsafe(`DROP INDEX ${i.name}`)
  }
  for (const table of RUN_TABLES) {
    const old = `${table.name}_unpartitioned`
    yield* sql.unsafe(`CREATE TABLE ${table.name} (LIKE ${old} INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (${table.key})`)
    yield* createPartitions(table, today)
    yield* sql.unsafe(`INSERT INTO ${table.name} SELECT * FROM ${old}`)
    yield* sql.unsafe(`DROP TABLE ${old}`)
    for (const constraint of table.constraints) yield* sql.unsafe(`ALTER TABLE ${table.name} ADD CONSTRAINT ${constraint}`)
    for (const index of table.indexes) yield* sql.unsafe(`CREATE INDEX ${index}`)
  }
  yield* sql`
    CREATE OR REPLACE FUNCTION delete_run_journal() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM run_steps WHERE run_id IN (SELECT id FROM gone);
      DELETE FROM run_events WHERE run_id IN (SELECT id FROM gone);
      DELETE FROM run_spans WHERE run_id IN (SELECT id FROM gone);
      DELETE FROM hitl_requests WHERE run_id IN (SELECT id FROM gone);
      DELETE FROM run_waits WHERE run_id IN (SELECT id FROM gone);
      RETURN NULL;
    END $$`
  yield* sql`CREATE TRIGGER runs_journal_cleanup AFTER DELETE ON runs REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION delete_run_journal()`
})
