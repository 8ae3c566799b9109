import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE agent_definitions ADD COLUMN preset text`
  yield* sql`
    CREATE TABLE agent_files (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      filename text NOT NULL,
      content_type text NOT NULL,
      size_bytes int NOT NULL,
      content bytea NOT NULL,
      run_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX agent_files_tenant ON agent_files (tenant_id, created_at DESC)`
})
