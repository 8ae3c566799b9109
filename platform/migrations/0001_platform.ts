import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.pipe(Effect.ignore)
  yield* sql`
    CREATE TABLE IF NOT EXISTS audit_events (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      actor_user_id uuid,
      actor_api_key_id uuid,
      action text NOT NULL,
      resource_type text NOT NULL,
      resource_id text,
      details jsonb NOT NULL DEFAULT '{}'::jsonb,
      request_id text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX IF NOT EXISTS audit_events_tenant_created ON audit_events (tenant_id, created_at DESC, id DESC)`
  yield* sql`
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      tenant_id uuid NOT NULL,
      principal_key text NOT NULL,
      idempotency_key text NOT NULL,
      operation text NOT NULL,
      request_hash text NOT NULL,
      state text NOT NULL,
      response jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, principal_key, operation, idempotency_key)
    )`
  yield* sql`CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at)`
  yield* sql`
    CREATE TABLE IF NOT EXISTS mail_outbox (
      id uuid PRIMARY KEY,
      to_address text NOT NULL,
      subject text NOT NULL,
      body_text text NOT NULL,
      status text NOT NULL,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz
    )`
})
