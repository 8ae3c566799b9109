import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Rate-limit windows shared by processes without Redis; unlogged: losing them in a crash only resets counters. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE UNLOGGED TABLE IF NOT EXISTS rate_limit_windows (
      key text PRIMARY KEY,
      count integer NOT NULL,
      reset_at timestamptz NOT NULL
    )`
})
