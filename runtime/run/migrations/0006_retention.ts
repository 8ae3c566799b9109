import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Retention (issue 38): a run can be held past its tenant's retention; finished runs are found by
 * their tenant and end time (the sweep's index). `runs_recent` went: `runs_history` begins with
 * the same columns and serves the same reads.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs ADD COLUMN IF NOT EXISTS retention_hold boolean NOT NULL DEFAULT false`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_finished ON runs (tenant_id, finished_at) WHERE finished_at IS NOT NULL`
  yield* sql`DROP INDEX IF EXISTS runs_recent`
})
