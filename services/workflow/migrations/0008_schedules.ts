import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * One schedule per AI Employee. What scheduled runs record (their fire time, at most one run per
 * fire time by a unique index, and why one was skipped) is on the run tables, in the run
 * kernel's migration set.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE schedules (
      workflow_id uuid PRIMARY KEY REFERENCES workflows(id) ON DELETE CASCADE,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      cron text NOT NULL,
      timezone text NOT NULL,
      input_params jsonb NOT NULL DEFAULT '{}'::jsonb,
      overlap_policy text NOT NULL DEFAULT 'skip',
      enabled boolean NOT NULL DEFAULT false,
      managed boolean NOT NULL DEFAULT false,
      next_fire_at timestamptz,
      last_fire_at timestamptz,
      last_error text,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX schedules_due ON schedules (next_fire_at) WHERE enabled`
})
