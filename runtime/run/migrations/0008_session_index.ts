import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The recent-runs list finds a chat session's latest run by this index (Partitions.ts lists it for rebuilt tables). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX IF NOT EXISTS runs_session ON runs (tenant_id, session_id, created_at DESC) WHERE session_id IS NOT NULL`
})
