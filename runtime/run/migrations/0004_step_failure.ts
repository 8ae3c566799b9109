import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A failed step keeps how its failure classifies (the node type's `failures`): `error_kind`
 * (configuration, unavailable, dependency, model: whether a retry can help) and the reason code.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE run_steps ADD COLUMN IF NOT EXISTS error_kind text, ADD COLUMN IF NOT EXISTS error_code text`
})
