import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_ticketing.js"

export const ticketingMigrations: MigrationSet = {
  table: "ticketing_migrations",
  migrations: {
    "0001_ticketing": m0001
  }
}
