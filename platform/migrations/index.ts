import type { MigrationSet } from "../Migrations.js"
import m0001 from "./0001_platform.js"
import m0002 from "./0002_rate_limits.js"

export const platformMigrations: MigrationSet = {
  table: "platform_migrations",
  migrations: {
    "0001_platform": m0001,
    "0002_rate_limits": m0002
  }
}
