import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A chat widget key's published scope: the origins of its pages and the AI Employees it reaches (schemas/Auth.ts WidgetScope). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE api_keys ADD COLUMN widget jsonb`
})
