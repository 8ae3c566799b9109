import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Documents with every change a version, comment threads, and export jobs. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE docgen_documents (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      owner_id uuid NOT NULL,
      title text NOT NULL,
      content_html text NOT NULL DEFAULT '',
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      type text,
      version int NOT NULL DEFAULT 1,
      workflow_id uuid,
      session_id uuid,
      parent_document_id uuid REFERENCES docgen_documents(id),
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX docgen_documents_owner ON docgen_documents (tenant_id, owner_id, updated_at DESC) WHERE deleted_at IS NULL`
  yield* sql`
    CREATE TABLE docgen_versions (
      document_id uuid NOT NULL REFERENCES docgen_documents(id) ON DELETE CASCADE,
      number int NOT NULL,
      source text NOT NULL,
      change_description text,
      user_id uuid,
      run_id uuid,
      content_html text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (document_id, number)
    )`
  yield* sql`
    CREATE TABLE docgen_threads (
      id uuid PRIMARY KEY,
      document_id uuid NOT NULL REFERENCES docgen_documents(id) ON DELETE CASCADE,
      anchor jsonb NOT NULL DEFAULT '{}'::jsonb,
      status text NOT NULL DEFAULT 'open',
      created_by uuid NOT NULL,
      resolved_by uuid,
      resolved_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE docgen_comments (
      id uuid PRIMARY KEY,
      thread_id uuid NOT NULL REFERENCES docgen_threads(id) ON DELETE CASCADE,
      author_id uuid NOT NULL,
      content text NOT NULL,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE docgen_chat_sessions (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      owner_id uuid NOT NULL,
      document_id uuid REFERENCES docgen_documents(id) ON DELETE CASCADE,
      workflow_id uuid,
      title text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE docgen_chat_messages (
      id uuid PRIMARY KEY,
      session_id uuid NOT NULL REFERENCES docgen_chat_sessions(id) ON DELETE CASCADE,
      role text NOT NULL,
      content text NOT NULL,
      mode text NOT NULL,
      selected_html text,
      replacement_text text,
      sources jsonb NOT NULL DEFAULT '[]'::jsonb,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`
  yield* sql`
    CREATE TABLE docgen_section_profiles (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      instructions text NOT NULL DEFAULT '',
      keywords text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE docgen_templates (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      kind text NOT NULL,
      mode text NOT NULL,
      file bytea,
      size_bytes int NOT NULL,
      html text NOT NULL,
      text text NOT NULL DEFAULT '',
      slots text[] NOT NULL DEFAULT '{}',
      slide_count int,
      is_default boolean NOT NULL DEFAULT false,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX docgen_templates_default ON docgen_templates (tenant_id) WHERE is_default`
  yield* sql`
    CREATE TABLE docgen_exports (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      owner_id uuid NOT NULL,
      document_ids uuid[] NOT NULL,
      format text NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      lease_until timestamptz,
      file_html text,
      error text,
      expires_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    )`
})
