import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE agent_definitions (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      agent_type text NOT NULL,
      type_version text NOT NULL,
      system_prompt_template text NOT NULL,
      input_schema jsonb,
      llm_config jsonb NOT NULL DEFAULT '{}'::jsonb,
      type_config jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX agent_definitions_tenant ON agent_definitions (tenant_id, created_at DESC)`
  yield* sql`
    CREATE TABLE test_executions (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      agent_type text NOT NULL,
      status text NOT NULL,
      agent_config jsonb NOT NULL,
      inputs jsonb NOT NULL,
      output jsonb,
      tokens_used int NOT NULL DEFAULT 0,
      token_breakdown jsonb NOT NULL DEFAULT '{}'::jsonb,
      error text,
      is_dry_run boolean NOT NULL DEFAULT false,
      workflow_id uuid,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    )`
  yield* sql`CREATE INDEX test_executions_tenant ON test_executions (tenant_id, created_at DESC)`
})
