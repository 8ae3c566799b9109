import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_docgen.js"

export const docgenMigrations: MigrationSet = {
  table: "docgen_migrations",
  migrations: {
    "0001_docgen": m0001
  }
}
