import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../../platform/Rows.js"

/**
 * A lighter journal for the commit every node makes. Log records are no longer stored beside
 * the events: the trace endpoints derive them from the events (each event keeps the span it
 * happened in). The journal tables stop checking their run row per inserted row (the kernel
 * writes them only for a run it holds); removing a run still removes its journal, by trigger.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE run_events ADD COLUMN IF NOT EXISTS span_id text`
  const [logs] = yield* sql`SELECT to_regclass('run_logs') IS NOT NULL AS present`.pipe(decodeRows("query", Schema.Struct({ present: Schema.Boolean })))
  if (logs?.present === true) {
    yield* sql`UPDATE run_events e SET span_id = l.otlp->>'spanId' FROM run_logs l WHERE l.run_id = e.run_id AND l.seq = e.seq`
    yield* sql`DROP TABLE run_logs`
  }
  const foreignKeys = yield* sql`
    SELECT conrelid::regclass::text AS table_name, conname AS name FROM pg_constraint
    WHERE contype = 'f' AND confrelid = 'runs'::regclass AND conrelid::regclass::text IN ('run_steps', 'run_events', 'run_spans')`.pipe(
    decodeRows("pg_constraint", Schema.Struct({ table_name: Schema.String, name: Schema.String }))
  )
  for (const fk of foreignKeys) yield* sql.unsafe(`ALTER TABLE ${fk.table_name} DROP CONSTRAINT ${fk.name}`)
  yield* sql`
    CREATE OR REPLACE FUNCTION delete_run_journal() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM run_steps WHERE run_id IN (SELECT id FROM gone);
      DELETE FROM run_events WHERE run_id IN (SELECT id FROM gone);
      DELETE FROM run_spans WHERE run_id IN (SELECT id FROM gone);
      RETURN NULL;
    END $$`
  yield* sql`DROP TRIGGER IF EXISTS runs_journal_cleanup ON runs`
  yield* sql`CREATE TRIGGER runs_journal_cleanup AFTER DELETE ON runs REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION delete_run_journal()`
})
