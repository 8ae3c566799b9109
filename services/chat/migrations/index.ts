import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_chat.js"
import m0002 from "./0002_partitioned_messages.js"

export const chatMigrations: MigrationSet = {
  table: "chat_migrations",
  migrations: {
    "0001_chat": m0001,
    "0002_partitioned_messages": m0002
  }
}
