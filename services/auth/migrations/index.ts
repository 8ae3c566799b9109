import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_auth.js"

export const authMigrations: MigrationSet = {
  table: "auth_migrations",
  migrations: {
    "0001_auth": m0001
  }
}
