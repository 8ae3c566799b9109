import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_chat.js"

export const chatMigrations: MigrationSet = {
  table: "chat_migrations",
  migrations: {
    "0001_chat": m0001
  }
}
