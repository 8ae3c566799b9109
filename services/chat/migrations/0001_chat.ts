import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE chat_sessions (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
      user_id uuid NOT NULL,
      title text NOT NULL DEFAULT '',
      title_source text NOT NULL DEFAULT 'empty',
      input_params jsonb NOT NULL DEFAULT '{}'::jsonb,
      channel text NOT NULL DEFAULT 'web',
      external_subject text,
      conversation_id text,
      single_shot boolean NOT NULL DEFAULT false,
      status text NOT NULL DEFAULT 'active',
      last_activity_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    )`
  yield* sql`CREATE INDEX chat_sessions_owner ON chat_sessions (tenant_id, user_id, workflow_id, last_activity_at DESC)
    WHERE deleted_at IS NULL`
  yield* sql`CREATE UNIQUE INDEX chat_sessions_conversation ON chat_sessions
    (tenant_id, workflow_id, channel, user_id, coalesce(external_subject, ''), conversation_id)
    WHERE deleted_at IS NULL AND conversation_id IS NOT NULL`
  yield* sql`
    CREATE TABLE chat_messages (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL,
      -- an answer's question; the turn is the question's seq for both
      reply_seq bigint,
      turn_seq bigint GENERATED ALWAYS AS (coalesce(reply_seq, seq)) STORED,
      session_id uuid NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
      tenant_id uuid NOT NULL,
      role text NOT NULL,
      content text NOT NULL,
      status text NOT NULL,
      run_id uuid,
      reply_to uuid,
      assistant_message_id uuid,
      is_dry_run boolean NOT NULL DEFAULT false,
      user_context jsonb,
      sources jsonb NOT NULL DEFAULT '[]'::jsonb,
      response_buttons jsonb NOT NULL DEFAULT '[]'::jsonb,
      error text,
      sentiment text,
      feedback_category text,
      feedback_text text,
      feedback_at timestamptz,
      feedback_run_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    )`
  yield* sql`CREATE INDEX chat_messages_session ON chat_messages (session_id, turn_seq, seq)`
  yield* sql`CREATE UNIQUE INDEX chat_messages_run ON chat_messages (run_id) WHERE role = 'user'`
  yield* sql`CREATE INDEX chat_messages_open ON chat_messages (status) WHERE role = 'user' AND status IN ('queued', 'running')`
  yield* sql`
    CREATE TABLE chat_pii_tokens (
      session_id uuid NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
      token text NOT NULL,
      kind text NOT NULL,
      value_hash text NOT NULL,
      sealed_value text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (session_id, token),
      UNIQUE (session_id, value_hash)
    )`
})
