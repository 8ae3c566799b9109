import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Document trigger bindings: a knowledge base (narrowed by folder and type) an AI Employee watches. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE document_triggers (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
      knowledge_base_id uuid NOT NULL,
      folder_prefix text NOT NULL DEFAULT '',
      mime_type_allowlist text[] NOT NULL DEFAULT '{}',
      fire_on text NOT NULL DEFAULT 'created',
      enabled boolean NOT NULL DEFAULT true,
      last_error text,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX document_triggers_workflow ON document_triggers (tenant_id, workflow_id)`
  yield* sql`CREATE INDEX document_triggers_kb ON document_triggers (knowledge_base_id) WHERE enabled`
})
