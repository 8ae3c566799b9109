import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * One schedule per AI Employee, and what scheduled runs record. A fire time has at most one run
 * (the unique index): the fire claim and this index both keep a fire from starting twice.
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
  yield* sql`ALTER TABLE runs ADD COLUMN scheduled_fire_time timestamptz, ADD COLUMN skip_reason text`
  yield* sql`CREATE UNIQUE INDEX runs_schedule_fire ON runs (workflow_id, scheduled_fire_time) WHERE scheduled_fire_time IS NOT NULL`
  yield* sql`CREATE INDEX runs_schedule_active ON runs (workflow_id)
    WHERE scheduled_fire_time IS NOT NULL AND status IN ('pending', 'running', 'paused')`
})
