import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Nudge cards of notify_user nodes: one per run and card_ref. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE nudge_cards (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      run_id uuid NOT NULL,
      workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
      node_id text NOT NULL,
      card_ref text NOT NULL,
      mode text NOT NULL,
      recipient jsonb NOT NULL,
      title text,
      body text,
      actions jsonb NOT NULL DEFAULT '[]'::jsonb,
      trigger_workflow_id uuid,
      status text NOT NULL DEFAULT 'open',
      response jsonb,
      responded_by uuid,
      responded_at timestamptz,
      triggered_run_id uuid,
      expires_at timestamptz,
      reminder_every_seconds int,
      reminder_max int,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (run_id, card_ref)
    )`
  yield* sql`CREATE INDEX nudge_cards_open ON nudge_cards (tenant_id, created_at) WHERE status = 'open'`
})
