import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The run kernel's own columns and tables on top of the run tables: wake-up requests
 * (`wake_seq`, seen up to `wake_done`), runs at rest waiting on a child (`dormant`), and the
 * waits of nodes (timers, external answers, child runs). The @effect/workflow messages of the
 * engine it replaces are dropped: the run rows are the durable record.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs ADD COLUMN IF NOT EXISTS wake_seq bigint NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE runs ADD COLUMN IF NOT EXISTS wake_done bigint NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE runs ADD COLUMN IF NOT EXISTS dormant boolean NOT NULL DEFAULT false`
  yield* sql`
    CREATE TABLE IF NOT EXISTS run_waits (
      run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      node_id text NOT NULL,
      kind text NOT NULL,
      key text NOT NULL,
      deadline timestamptz,
      resolution jsonb,
      resolved_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (run_id, node_id)
    )`
  yield* sql`CREATE INDEX IF NOT EXISTS run_waits_due ON run_waits (deadline) WHERE resolved_at IS NULL AND deadline IS NOT NULL`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_children ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_unfinished ON runs (updated_at) WHERE status IN ('pending', 'running') AND NOT held AND NOT dormant`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_woken ON runs (id) WHERE wake_seq > wake_done`
  const [cluster] = yield* sql<{ present: boolean }>`SELECT to_regclass('cluster_messages') IS NOT NULL AS present`
  if (cluster?.present === true) {
    yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT request_id FROM cluster_messages WHERE entity_type LIKE 'Workflow/%')`
    yield* sql`DELETE FROM cluster_messages WHERE entity_type LIKE 'Workflow/%'`
  }
})
