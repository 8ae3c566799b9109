import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_agents.js"
import m0002 from "./0002_files_presets.js"

export const agentMigrations: MigrationSet = {
  table: "agent_migrations",
  migrations: {
    "0001_agents": m0001,
    "0002_files_presets": m0002
  }
}
