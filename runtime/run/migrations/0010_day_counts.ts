import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Run counts per tenant and closed day, so that a list's exact `total` sums a few rows per day
 * instead of counting every run of the history (services/workflow/RunTotals.ts). `run_day_counts`
 * holds a counted day's runs by AI Employee, status and trigger (dry runs left out; `solo`: top-level
 * runs outside a chat session); `run_day_marks` says which days are counted, and `version` moves on
 * every change to a run of a past day. The triggers keep that true whatever writes: a run of a
 * past day inserted, deleted, or changing a counted column marks its day uncounted and drops its
 * counts (a day emptied by TRUNCATE is marked by its expiry, runtime/run/Partitions.ts callers).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS run_day_marks (
      tenant_id uuid NOT NULL,
      day date NOT NULL,
      version bigint NOT NULL DEFAULT 0,
      counted boolean NOT NULL DEFAULT false,
      PRIMARY KEY (tenant_id, day)
    )`
  yield* sql`
    CREATE TABLE IF NOT EXISTS run_day_counts (
      tenant_id uuid NOT NULL,
      day date NOT NULL,
      workflow_id uuid NOT NULL,
      status text NOT NULL,
      trigger_type text NOT NULL,
      runs integer NOT NULL,
      solo integer NOT NULL,
      PRIMARY KEY (tenant_id, day, workflow_id, status, trigger_type)
    )`
  yield* sql`CREATE INDEX IF NOT EXISTS run_day_counts_workflow ON run_day_counts (tenant_id, workflow_id, day)`
  yield* sql.unsafe(`
    CREATE OR REPLACE FUNCTION run_day_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      today timestamptz := date_trunc('day', now(), 'UTC');
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.created_at < today AND NOT OLD.is_dry_run THEN
        INSERT INTO run_day_marks AS m (tenant_id, day) VALUES (OLD.tenant_id, (OLD.created_at AT TIME ZONE 'UTC')::date)
          ON CONFLICT (tenant_id, day) DO UPDATE SET version = m.version + 1, counted = false;
        DELETE FROM run_day_counts WHERE tenant_id = OLD.tenant_id AND day = (OLD.created_at AT TIME ZONE 'UTC')::date;
      END IF;
      IF TG_OP <> 'DELETE' AND NEW.created_at < today AND NOT NEW.is_dry_run THEN
        INSERT INTO run_day_marks AS m (tenant_id, day) VALUES (NEW.tenant_id, (NEW.created_at AT TIME ZONE 'UTC')::date)
          ON CONFLICT (tenant_id, day) DO UPDATE SET version = m.version + 1, counted = false;
        DELETE FROM run_day_counts WHERE tenant_id = NEW.tenant_id AND day = (NEW.created_at AT TIME ZONE 'UTC')::date;
      END IF;
      RETURN NULL;
    END $$`)
  // Each condition is checked without calling the function: a run of today (nearly every write) costs nothing more.
  yield* sql`DROP TRIGGER IF EXISTS run_day_inserted ON runs`
  yield* sql`DROP TRIGGER IF EXISTS run_day_updated ON runs`
  yield* sql`DROP TRIGGER IF EXISTS run_day_deleted ON runs`
  yield* sql`CREATE TRIGGER run_day_inserted AFTER INSERT ON runs FOR EACH ROW
    WHEN (NEW.created_at < date_trunc('day', now(), 'UTC')) EXECUTE FUNCTION run_day_changed()`
  yield* sql`CREATE TRIGGER run_day_updated AFTER UPDATE OF status, workflow_id, trigger_type, parent_run_id, session_id, is_dry_run, created_at, tenant_id
    ON runs FOR EACH ROW
    WHEN ((OLD.created_at < date_trunc('day', now(), 'UTC') OR NEW.created_at < date_trunc('day', now(), 'UTC'))
      AND (OLD.status, OLD.workflow_id, OLD.trigger_type, OLD.parent_run_id, OLD.session_id, OLD.is_dry_run, OLD.created_at, OLD.tenant_id)
        IS DISTINCT FROM (NEW.status, NEW.workflow_id, NEW.trigger_type, NEW.parent_run_id, NEW.session_id, NEW.is_dry_run, NEW.created_at, NEW.tenant_id))
    EXECUTE FUNCTION run_day_changed()`
  yield* sql`CREATE TRIGGER run_day_deleted AFTER DELETE ON runs FOR EACH ROW
    WHEN (OLD.created_at < date_trunc('day', now(), 'UTC')) EXECUTE FUNCTION run_day_changed()`
})
