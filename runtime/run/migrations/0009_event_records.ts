import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A journal commit's events are one row of run_events from here on (runtime/run/JournalRecord.ts):
 * `seq` is the record's last event, `body` the record, `keyed` whether the kernel reads its keys
 * back when it loads the run (one event per key and run is the kernel's rule now, not a unique
 * index), `detail` whether the detail retention has streamed text or spans to take out of it.
 * Rows of earlier releases (one event each) stay as they are and are read as before.
 * Steps are keyed by (run_id, node_id) alone.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE run_events ADD COLUMN IF NOT EXISTS body bytea,
    ADD COLUMN IF NOT EXISTS keyed boolean NOT NULL DEFAULT false,
    ADD COLUMN IF NOT EXISTS detail boolean NOT NULL DEFAULT false`
  yield* sql`ALTER TABLE run_events ALTER COLUMN dedupe_key DROP NOT NULL, ALTER COLUMN type DROP NOT NULL, ALTER COLUMN payload DROP NOT NULL`
  yield* sql`ALTER TABLE run_events DROP CONSTRAINT IF EXISTS run_events_run_id_dedupe_key_key`
  // A step is found by its run and node (its id is derived from them for new steps): the second key on every step row went.
  yield* sql`ALTER TABLE run_steps DROP CONSTRAINT IF EXISTS run_steps_pkey`
})
