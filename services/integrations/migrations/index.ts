import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_integrations.js"

export const integrationMigrations: MigrationSet = {
  table: "integration_migrations",
  migrations: {
    "0001_integrations": m0001
  }
}
