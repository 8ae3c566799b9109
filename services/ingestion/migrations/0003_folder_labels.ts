import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** `folder_path` becomes canonical (matching, identity); `folder_label` keeps what the client sent. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE kb_documents ADD COLUMN IF NOT EXISTS folder_label text`
  yield* sql`UPDATE kb_documents SET folder_label = folder_path WHERE folder_label IS NULL`
  yield* sql`UPDATE kb_documents SET folder_path = '/' || array_to_string(array_remove(string_to_array(folder_path, '/'), ''), '/')`
})
