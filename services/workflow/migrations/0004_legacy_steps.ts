import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Steps (`<node id>:<preset>`) that may keep a preset no longer offered for new steps. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE workflows ADD COLUMN legacy_steps jsonb NOT NULL DEFAULT '[]'::jsonb`
})
