import { Effect } from "effect"
import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_workflow.js"
import m0003 from "./0003_llm_providers.js"
import m0004 from "./0004_legacy_steps.js"
import m0007 from "./0007_webhooks.js"
import m0008 from "./0008_schedules.js"
import m0009 from "./0009_document_triggers.js"
import m0010 from "./0010_inbound_email.js"
import m0011 from "./0011_nudges.js"
import m0014 from "./0014_retention.js"

/**
 * Moved: the run tables are defined in the run kernel's migration set (runtime/run/migrations).
 * Databases that ran these migrations keep what they made; the kernel's set brings every
 * database to the same run tables.
 */
const movedToRunSet = Effect.void

export const workflowMigrations: MigrationSet = {
  table: "workflow_migrations",
  migrations: {
    "0001_workflow": m0001,
    "0002_runs": movedToRunSet,
    "0003_llm_providers": m0003,
    "0004_legacy_steps": m0004,
    "0005_run_telemetry": movedToRunSet,
    "0006_held_runs": movedToRunSet,
    "0007_webhooks": m0007,
    "0008_schedules": m0008,
    "0009_document_triggers": m0009,
    "0010_inbound_email": m0010,
    "0011_nudges": m0011,
    "0012_run_overrides": movedToRunSet,
    "0013_run_history": movedToRunSet,
    "0014_retention": m0014
  }
}
