import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_workflow.js"
import m0002 from "./0002_runs.js"
import m0003 from "./0003_llm_providers.js"
import m0004 from "./0004_legacy_steps.js"
import m0005 from "./0005_run_telemetry.js"
import m0006 from "./0006_held_runs.js"
import m0007 from "./0007_webhooks.js"
import m0008 from "./0008_schedules.js"
import m0009 from "./0009_document_triggers.js"
import m0010 from "./0010_inbound_email.js"
import m0011 from "./0011_nudges.js"
import m0012 from "./0012_run_overrides.js"
import m0013 from "./0013_run_history.js"

export const workflowMigrations: MigrationSet = {
  table: "workflow_migrations",
  migrations: {
    "0001_workflow": m0001,
    "0002_runs": m0002,
    "0003_llm_providers": m0003,
    "0004_legacy_steps": m0004,
    "0005_run_telemetry": m0005,
    "0006_held_runs": m0006,
    "0007_webhooks": m0007,
    "0008_schedules": m0008,
    "0009_document_triggers": m0009,
    "0010_inbound_email": m0010,
    "0011_nudges": m0011,
    "0012_run_overrides": m0012,
    "0013_run_history": m0013
  }
}
