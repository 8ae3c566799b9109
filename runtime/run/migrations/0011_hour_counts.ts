import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Run counts per tenant and closed hour (they were per day, migration 0010). A list's total sums
 * the counted hours and counts only the runs of the last hour or so: per day, that open part was a
 * whole day of runs (33,000 a day in the million-run benchmark, ~15 ms a count), and a `since`
 * inside a day counted that day's part too. `run_hour_counts` holds a counted hour's runs by AI
 * Employee, status and trigger (dry runs left out; `solo`: top-level runs outside a chat session);
 * `run_hour_marks` says which hours are counted, and `version` moves on every change to a run of a
 * past hour. The triggers keep that true whatever writes: a run of a past hour inserted, deleted,
 * or changing a counted column marks its hour uncounted and drops its counts (an hour emptied by
 * TRUNCATE is marked by its expiry, runtime/run/Partitions.ts). The day tables are dropped: the
 * hours are counted again from the runs (RunTotals.ts).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE IF NOT EXISTS run_hour_marks (
      tenant_id uuid NOT NULL,
      hour timestamptz NOT NULL,
      version bigint NOT NULL DEFAULT 0,
      counted boolean NOT NULL DEFAULT false,
      PRIMARY KEY (tenant_id, hour)
    )`
  yield* sql`
    CREATE TABLE IF NOT EXISTS run_hour_counts (
      tenant_id uuid NOT NULL,
      hour timestamptz NOT NULL,
      workflow_id uuid NOT NULL,
      status text NOT NULL,
      trigger_type text NOT NULL,
      runs integer NOT NULL,
      solo integer NOT NULL,
      PRIMARY KEY (tenant_id, hour, workflow_id, status, trigger_type)
    )`
  yield* sql`CREATE INDEX IF NOT EXISTS run_hour_counts_workflow ON run_hour_counts (tenant_id, workflow_id, hour)`
  yield* sql.unsafe(`
    CREATE OR REPLACE FUNCTION run_hour_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      this_hour timestamptz := date_trunc('hour', now(), 'UTC');
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.created_at < this_hour AND NOT OLD.is_dry_run THEN
        INSERT INTO run_hour_marks AS m (tenant_id, hour) VALUES (OLD.tenant_id, date_trunc('hour', OLD.created_at, 'UTC'))
          ON CONFLICT (tenant_id, hour) DO UPDATE SET version = m.version + 1, counted = false;
        DELETE FROM run_hour_counts WHERE tenant_id = OLD.tenant_id AND hour = date_trunc('hour', OLD.created_at, 'UTC');
      END IF;
      IF TG_OP <> 'DELETE' AND NEW.created_at < this_hour AND NOT NEW.is_dry_run THEN
        INSERT INTO run_hour_marks AS m (tenant_id, hour) VALUES (NEW.tenant_id, date_trunc('hour', NEW.created_at, 'UTC'))
          ON CONFLICT (tenant_id, hour) DO UPDATE SET version = m.version + 1, counted = false;
        DELETE FROM run_hour_counts WHERE tenant_id = NEW.tenant_id AND hour = date_trunc('hour', NEW.created_at, 'UTC');
      END IF;
      RETURN NULL;
    END $$`)
  yield* sql`DROP TRIGGER IF EXISTS run_day_inserted ON runs`
  yield* sql`DROP TRIGGER IF EXISTS run_day_updated ON runs`
  yield* sql`DROP TRIGGER IF EXISTS run_day_deleted ON runs`
  yield* sql`DROP FUNCTION IF EXISTS run_day_changed()`
  yield* sql`DROP TABLE IF EXISTS run_day_counts`
  yield* sql`DROP TABLE IF EXISTS run_day_marks`
  // Each condition is checked without calling the function: a run of this hour (nearly every write) costs nothing more.
  yield* sql`DROP TRIGGER IF EXISTS run_hour_inserted ON runs`
  yield* sql`DROP TRIGGER IF EXISTS run_hour_updated ON runs`
  yield* sql`DROP TRIGGER IF EXISTS run_hour_deleted ON runs`
  yield* sql`CREATE TRIGGER run_hour_inserted AFTER INSERT ON runs FOR EACH ROW
    WHEN (NEW.created_at < date_trunc('hour', now(), 'UTC')) EXECUTE FUNCTION run_hour_changed()`
  yield* sql`CREATE TRIGGER run_hour_updated AFTER UPDATE OF status, workflow_id, trigger_type, parent_run_id, session_id, is_dry_run, created_at, tenant_id
    ON runs FOR EACH ROW
    WHEN ((OLD.created_at < date_trunc('hour', now(), 'UTC') OR NEW.created_at < date_trunc('hour', now(), 'UTC'))
      AND (OLD.status, OLD.workflow_id, OLD.trigger_type, OLD.parent_run_id, OLD.session_id, OLD.is_dry_run, OLD.created_at, OLD.tenant_id)
        IS DISTINCT FROM (NEW.status, NEW.workflow_id, NEW.trigger_type, NEW.parent_run_id, NEW.session_id, NEW.is_dry_run, NEW.created_at, NEW.tenant_id))
    EXECUTE FUNCTION run_hour_changed()`
  yield* sql`CREATE TRIGGER run_hour_deleted AFTER DELETE ON runs FOR EACH ROW
    WHEN (OLD.created_at < date_trunc('hour', now(), 'UTC')) EXECUTE FUNCTION run_hour_changed()`
})
