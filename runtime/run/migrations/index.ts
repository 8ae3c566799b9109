import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_kernel.js"
import m0002 from "./0002_journal.js"

export const runMigrationSet: MigrationSet = {
  table: "run_migrations",
  migrations: {
    "0001_kernel": m0001,
    "0002_journal": m0002
  }
}
