import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_kernel.js"
import m0002 from "./0002_journal.js"
import m0003 from "./0003_run_tables_here.js"
import m0004 from "./0004_step_failure.js"
import m0005 from "./0005_compact_spans.js"
import m0006 from "./0006_retention.js"
import m0007 from "./0007_partitioned_history.js"
import m0008 from "./0008_session_index.js"
import m0009 from "./0009_event_records.js"
import m0010 from "./0010_day_counts.js"
import m0011 from "./0011_hour_counts.js"

/**
 * Every run table's definition. Runs after the workflow service's set (runs refer to
 * workflows) and before every set whose tables refer to runs.
 */
export const runMigrationSet: MigrationSet = {
  table: "run_migrations",
  migrations: {
    "0001_kernel": m0001,
    "0002_journal": m0002,
    "0003_run_tables_here": m0003,
    "0004_step_failure": m0004,
    "0005_compact_spans": m0005,
    "0006_retention": m0006,
    "0007_partitioned_history": m0007,
    "0008_session_index": m0008,
    "0009_event_records": m0009,
    "0010_day_counts": m0010,
    "0011_hour_counts": m0011
  }
}
