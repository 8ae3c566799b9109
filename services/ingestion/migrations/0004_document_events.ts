import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The outbox of document arrivals: one row per stored document version, written in the
 * document's own transaction, read by the document triggers. `ready_at` is set once the version
 * is indexed (at commit without an embedding model, after its chunks are embedded with one).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE kb_document_events (
      id bigserial PRIMARY KEY,
      tenant_id uuid NOT NULL,
      kb_id uuid NOT NULL,
      document_id uuid NOT NULL,
      version int NOT NULL,
      title text NOT NULL,
      folder_path text NOT NULL,
      folder_label text NOT NULL,
      mime_type text NOT NULL,
      ready_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      dispatched_at timestamptz,
      UNIQUE (document_id, version)
    )`
  yield* sql`CREATE INDEX kb_document_events_pending ON kb_document_events (id) WHERE dispatched_at IS NULL`
})
