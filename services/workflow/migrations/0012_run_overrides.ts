import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Knowledge-search settings a run overrides for itself (an eval config's search_config), read by its agent steps. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs ADD COLUMN search_overrides jsonb`
})
