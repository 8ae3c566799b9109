import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_auth.js"
import m0002 from "./0002_sso_domain_claims.js"
import m0003 from "./0003_widget_keys.js"

export const authMigrations: MigrationSet = {
  table: "auth_migrations",
  migrations: {
    "0001_auth": m0001,
    "0002_sso_domain_claims": m0002,
    "0003_widget_keys": m0003
  }
}
