import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE knowledge_bases (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE kb_documents (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      kb_id uuid NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
      title text NOT NULL,
      mime_type text NOT NULL,
      folder_path text NOT NULL DEFAULT '/',
      version int NOT NULL,
      content_hash text NOT NULL,
      size_bytes int NOT NULL,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX kb_documents_kb ON kb_documents (kb_id, folder_path) WHERE deleted_at IS NULL`
  yield* sql`
    CREATE TABLE kb_document_versions (
      document_id uuid NOT NULL REFERENCES kb_documents(id) ON DELETE CASCADE,
      version int NOT NULL,
      content text NOT NULL,
      content_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (document_id, version)
    )`
  yield* sql`
    CREATE TABLE kb_chunks (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      kb_id uuid NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
      document_id uuid NOT NULL REFERENCES kb_documents(id) ON DELETE CASCADE,
      ordinal int NOT NULL,
      title text NOT NULL DEFAULT '',
      text text NOT NULL,
      tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', text), 'B')
      ) STORED
    )`
  yield* sql`CREATE INDEX kb_chunks_tsv ON kb_chunks USING gin (tsv)`
  yield* sql`CREATE INDEX kb_chunks_doc ON kb_chunks (document_id)`
})
