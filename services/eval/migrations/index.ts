import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_eval.js"
import m0002 from "./0002_partitioned_results.js"

export const evalMigrations: MigrationSet = {
  table: "eval_migrations",
  migrations: {
    "0001_eval": m0001,
    "0002_partitioned_results": m0002
  }
}
