import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Inbound email: which AI Employees take mail, and every message delivered to one, stored before
 * the listener answers 250. One row per AI Employee and Message-ID: a redelivery starts nothing.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE workflow_email (
      workflow_id uuid PRIMARY KEY REFERENCES workflows(id) ON DELETE CASCADE,
      tenant_id uuid NOT NULL,
      enabled boolean NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE inbound_emails (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
      message_id text NOT NULL,
      run_id uuid,
      error text,
      subject text NOT NULL,
      sender text NOT NULL,
      recipients jsonb NOT NULL,
      conversation_id text NOT NULL,
      headers jsonb NOT NULL,
      text_body text,
      html_body text,
      size_bytes int NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (workflow_id, message_id)
    )`
  yield* sql`CREATE INDEX inbound_emails_message ON inbound_emails (tenant_id, message_id)`
  yield* sql`
    CREATE TABLE inbound_email_attachments (
      email_id uuid NOT NULL REFERENCES inbound_emails(id) ON DELETE CASCADE,
      position int NOT NULL,
      filename text NOT NULL,
      content_type text NOT NULL,
      size_bytes int NOT NULL,
      inline boolean NOT NULL,
      checksum text NOT NULL,
      content bytea NOT NULL,
      PRIMARY KEY (email_id, position)
    )`
})
