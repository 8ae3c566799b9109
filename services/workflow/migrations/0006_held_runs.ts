import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A held run is accepted but waits for its turn (a chat message queued behind a busy run). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs ADD COLUMN held boolean NOT NULL DEFAULT false`
})
