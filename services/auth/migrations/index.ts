import type { MigrationSet } from "../../../platform/Migrations.js"
import m0001 from "./0001_auth.js"
import m0002 from "./0002_sso_domain_claims.js"

export const authMigrations: MigrationSet = {
  table: "auth_migrations",
  migrations: {
    "0001_auth": m0001,
    "0002_sso_domain_claims": m0002
  }
}
