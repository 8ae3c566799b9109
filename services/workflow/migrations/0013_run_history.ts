import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The run history's keyset order (created_at, id) newest first, and its most used filter (status). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX runs_history ON runs (tenant_id, created_at DESC, id DESC) WHERE NOT is_dry_run`
  yield* sql`CREATE INDEX runs_history_status ON runs (tenant_id, status, created_at DESC, id DESC) WHERE NOT is_dry_run`
})
