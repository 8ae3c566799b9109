import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Retention (issue 38): a hold on an AI Employee keeps all its runs; how far each tenant's detail expiry has got. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE workflows ADD COLUMN IF NOT EXISTS retention_hold boolean NOT NULL DEFAULT false`
  yield* sql`
    CREATE TABLE IF NOT EXISTS retention_marks (
      tenant_id uuid PRIMARY KEY,
      detail_through timestamptz NOT NULL
    )`
})
