import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_ingestion.js"
import m0002 from "./0002_embeddings.js"
import m0003 from "./0003_folder_labels.js"
import m0004 from "./0004_document_events.js"

export const ingestionMigrations: MigrationSet = {
  table: "ingestion_migrations",
  migrations: {
    "0001_ingestion": m0001,
    "0002_embeddings": m0002,
    "0003_folder_labels": m0003,
    "0004_document_events": m0004
  }
}
