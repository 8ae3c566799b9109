import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The catalog (platform entries have no tenant; a workspace's own entries have one), installs
 * with their sealed credentials and per-user OAuth connections, executions, and MCP servers.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE catalog_entries (
      id uuid PRIMARY KEY,
      tenant_id uuid REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      display_name text NOT NULL,
      category text NOT NULL,
      base_url text,
      auth jsonb NOT NULL,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX catalog_entries_name ON catalog_entries (COALESCE(tenant_id, '00000000-0000-0000-0000-000000000000'::uuid), name)`
  yield* sql`
    CREATE TABLE catalog_functions (
      id uuid PRIMARY KEY,
      entry_id uuid NOT NULL REFERENCES catalog_entries(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      kind text NOT NULL,
      method text,
      path text,
      source text,
      input_schema jsonb NOT NULL,
      side_effects boolean NOT NULL,
      UNIQUE (entry_id, name)
    )`
  yield* sql`
    CREATE TABLE tenant_integrations (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      catalog_id uuid NOT NULL REFERENCES catalog_entries(id) ON DELETE CASCADE,
      package text,
      status text NOT NULL DEFAULT 'active',
      enabled_functions text[] NOT NULL DEFAULT '{}',
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, catalog_id)
    )`
  yield* sql`
    CREATE TABLE integration_credentials (
      integration_id uuid NOT NULL REFERENCES tenant_integrations(id) ON DELETE CASCADE,
      capability text NOT NULL,
      sealed text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (integration_id, capability)
    )`
  yield* sql`
    CREATE TABLE integration_connections (
      integration_id uuid NOT NULL REFERENCES tenant_integrations(id) ON DELETE CASCADE,
      user_id uuid NOT NULL,
      sealed text NOT NULL,
      scope text,
      expires_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (integration_id, user_id)
    )`
  yield* sql`
    CREATE TABLE integration_oauth_states (
      state text PRIMARY KEY,
      integration_id uuid NOT NULL REFERENCES tenant_integrations(id) ON DELETE CASCADE,
      user_id uuid NOT NULL,
      code_verifier_sealed text NOT NULL,
      redirect_uri text NOT NULL,
      expires_at timestamptz NOT NULL
    )`
  yield* sql`
    CREATE TABLE integration_executions (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      integration_id uuid NOT NULL,
      function_id uuid NOT NULL,
      function_name text NOT NULL,
      status text NOT NULL,
      input jsonb NOT NULL,
      output jsonb,
      error text,
      logs text,
      http_status int,
      duration_ms double precision NOT NULL,
      run_id uuid,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX integration_executions_recent ON integration_executions (tenant_id, created_at DESC, id)`
  yield* sql`
    CREATE TABLE mcp_servers (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text,
      server_url text NOT NULL,
      transport text NOT NULL,
      auth_type text NOT NULL,
      credentials_sealed text,
      status text NOT NULL DEFAULT 'pending_review',
      tools jsonb NOT NULL DEFAULT '[]'::jsonb,
      tools_refreshed_at timestamptz,
      discovery_error text,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE mcp_tool_calls (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      server_id uuid NOT NULL,
      tool text NOT NULL,
      run_id uuid,
      status text NOT NULL,
      input jsonb NOT NULL,
      output jsonb,
      error text,
      duration_ms double precision NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE integration_mail (
      id text PRIMARY KEY,
      tenant_id uuid NOT NULL,
      integration_id uuid NOT NULL,
      to_address text NOT NULL,
      subject text NOT NULL,
      status text NOT NULL,
      message_id text,
      error text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX mcp_tool_calls_run ON mcp_tool_calls (run_id) WHERE run_id IS NOT NULL`
  yield* sql`CREATE INDEX integration_executions_run ON integration_executions (run_id) WHERE run_id IS NOT NULL`
})
