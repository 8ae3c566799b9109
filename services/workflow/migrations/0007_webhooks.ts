import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Inbound webhooks of AI Employees: the secret is sealed (it signs deliveries, so it is kept). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE webhooks (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
      secret_enc text NOT NULL,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    )`
  yield* sql`CREATE INDEX webhooks_workflow ON webhooks (tenant_id, workflow_id) WHERE deleted_at IS NULL`
})
