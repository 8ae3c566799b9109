import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_integrations.js"
import m0002 from "./0002_mcp_approved_target.js"

export const integrationMigrations: MigrationSet = {
  table: "integration_migrations",
  migrations: {
    "0001_integrations": m0001,
    "0002_mcp_approved_target": m0002
  }
}
