import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_ticketing.js"
import m0002 from "./0002_connected_queues.js"
import m0003 from "./0003_request_ids_per_queue.js"

export const ticketingMigrations: MigrationSet = {
  table: "ticketing_migrations",
  migrations: {
    "0001_ticketing": m0001,
    "0002_connected_queues": m0002,
    "0003_request_ids_per_queue": m0003
  }
}
