import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The run tables as they are now, created where they are missing (a new database). Their rows
 * are the run kernel's: it is their one owner, and this migration set their one definition.
 */
export const createRunTables = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS runs (
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
      updated_at timestamptz NOT NULL DEFAULT now(),
      held boolean NOT NULL DEFAULT false,
      scheduled_fire_time timestamptz,
      skip_reason text,
      search_overrides jsonb,
      wake_seq bigint NOT NULL DEFAULT 0,
      wake_done bigint NOT NULL DEFAULT 0,
      dormant boolean NOT NULL DEFAULT false
    )`
  // The journal tables do not check their run row per inserted row; removing a run removes its journal by trigger (0002).
  yield* sql`
    CREATE TABLE IF NOT EXISTS run_steps (
      id uuid PRIMARY KEY,
      run_id uuid NOT NULL,
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
    CREATE TABLE IF NOT EXISTS run_events (
      run_id uuid NOT NULL,
      seq bigint NOT NULL,
      dedupe_key text NOT NULL,
      type text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      span_id text,
      PRIMARY KEY (run_id, seq),
      UNIQUE (run_id, dedupe_key)
    )`
  yield* sql`
    CREATE TABLE IF NOT EXISTS run_spans (
      run_id uuid NOT NULL,
      span_id text NOT NULL,
      tenant_id uuid NOT NULL,
      scope text NOT NULL,
      start_unix_nano bigint NOT NULL,
      otlp jsonb NOT NULL,
      PRIMARY KEY (run_id, span_id)
    )`
  yield* sql`
    CREATE TABLE IF NOT EXISTS hitl_requests (
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
  yield* sql`
    CREATE TABLE IF NOT EXISTS run_waits (
      run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      node_id text NOT NULL,
      kind text NOT NULL,
      key text NOT NULL,
      deadline timestamptz,
      resolution jsonb,
      resolved_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (run_id, node_id)
    )`
})

/**
 * Brings run tables made by earlier releases to the shape above: the columns and indexes that
 * were once added by the workflow service's migrations (held runs, schedules, search overrides,
 * the history order) and by the kernel's. Every statement is a no-op where it already holds.
 */
export const convergeRunTables = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs
    ADD COLUMN IF NOT EXISTS held boolean NOT NULL DEFAULT false,
    ADD COLUMN IF NOT EXISTS scheduled_fire_time timestamptz,
    ADD COLUMN IF NOT EXISTS skip_reason text,
    ADD COLUMN IF NOT EXISTS search_overrides jsonb,
    ADD COLUMN IF NOT EXISTS wake_seq bigint NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS wake_done bigint NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS dormant boolean NOT NULL DEFAULT false`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_workflow ON runs (tenant_id, workflow_id, created_at DESC)`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_recent ON runs (tenant_id, created_at DESC) WHERE NOT is_dry_run`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_history ON runs (tenant_id, created_at DESC, id DESC) WHERE NOT is_dry_run`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_history_status ON runs (tenant_id, status, created_at DESC, id DESC) WHERE NOT is_dry_run`
  yield* sql`CREATE UNIQUE INDEX IF NOT EXISTS runs_schedule_fire ON runs (workflow_id, scheduled_fire_time) WHERE scheduled_fire_time IS NOT NULL`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_schedule_active ON runs (workflow_id)
    WHERE scheduled_fire_time IS NOT NULL AND status IN ('pending', 'running', 'paused')`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_children ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_unfinished ON runs (updated_at) WHERE status IN ('pending', 'running') AND NOT held AND NOT dormant`
  yield* sql`CREATE INDEX IF NOT EXISTS runs_woken ON runs (id) WHERE wake_seq > wake_done`
  yield* sql`CREATE INDEX IF NOT EXISTS hitl_pending ON hitl_requests (tenant_id, status, created_at)`
  yield* sql`CREATE INDEX IF NOT EXISTS run_waits_due ON run_waits (deadline) WHERE resolved_at IS NULL AND deadline IS NOT NULL`
})
