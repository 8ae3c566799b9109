import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_integrations.js"
import m0002 from "./0002_mcp_approved_target.js"
import m0003 from "./0003_execution_retention.js"
import m0004 from "./0004_partitioned_executions.js"

export const integrationMigrations: MigrationSet = {
  table: "integration_migrations",
  migrations: {
    "0001_integrations": m0001,
    "0002_mcp_approved_target": m0002,
    "0003_execution_retention": m0003,
    "0004_partitioned_executions": m0004
  }
}
