import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE runs (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
      workflow_name text NOT NULL,
      version int NOT NULL,
      status text NOT NULL,
      trigger_type text NOT NULL,
      is_dry_run boolean NOT NULL DEFAULT false,
      input_params jsonb NOT NULL DEFAULT '{}'::jsonb,
      output jsonb,
      named_outputs jsonb NOT NULL DEFAULT '{}'::jsonb,
      token_usage jsonb NOT NULL DEFAULT '{}'::jsonb,
      error text,
      parent_run_id uuid,
      parent_node_id text,
      parent_deferred_token text,
      session_id uuid,
      created_by uuid,
      api_key_id uuid,
      event_seq bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX runs_workflow ON runs (tenant_id, workflow_id, created_at DESC)`
  yield* sql`CREATE INDEX runs_recent ON runs (tenant_id, created_at DESC) WHERE NOT is_dry_run`
  yield* sql`
    CREATE TABLE run_steps (
      id uuid PRIMARY KEY,
      run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      tenant_id uuid NOT NULL,
      node_id text NOT NULL,
      node_type text NOT NULL,
      node_name text,
      status text NOT NULL,
      attempt int NOT NULL DEFAULT 1,
      input jsonb,
      output jsonb,
      error text,
      token_usage jsonb NOT NULL DEFAULT '{}'::jsonb,
      position int NOT NULL,
      started_at timestamptz,
      finished_at timestamptz,
      UNIQUE (run_id, node_id)
    )`
  yield* sql`
    CREATE TABLE run_events (
      run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      dedupe_key text NOT NULL,
      type text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (run_id, seq),
      UNIQUE (run_id, dedupe_key)
    )`
  yield* sql`
    CREATE TABLE hitl_requests (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      workflow_id uuid NOT NULL,
      node_id text NOT NULL,
      type text NOT NULL,
      prompt text NOT NULL,
      choices jsonb,
      form_schema jsonb,
      assignee jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      claimed_by uuid,
      response jsonb,
      responded_by uuid,
      deferred_token text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      responded_at timestamptz,
      UNIQUE (run_id, node_id)
    )`
  yield* sql`CREATE INDEX hitl_pending ON hitl_requests (tenant_id, status, created_at)`
})
