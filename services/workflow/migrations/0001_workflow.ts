import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`
  yield* sql`
    CREATE TABLE workflows (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text,
      interaction_type text NOT NULL,
      status text NOT NULL DEFAULT 'draft',
      latest_version int NOT NULL DEFAULT 0,
      active_version int,
      icon text,
      category text,
      dag_definition jsonb NOT NULL DEFAULT '{}'::jsonb,
      config jsonb NOT NULL DEFAULT '{}'::jsonb,
      knowledge_base_ids jsonb NOT NULL DEFAULT '[]'::jsonb,
      public_app boolean NOT NULL DEFAULT false,
      archived_at timestamptz,
      adopted_at timestamptz,
      adopted_from_workflow_id uuid,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX workflows_tenant_list ON workflows (tenant_id, archived_at, updated_at DESC, id)`
  yield* sql`CREATE INDEX workflows_search ON workflows
    USING gin ((name || ' ' || coalesce(description, '')) gin_trgm_ops)`
  yield* sql`
    CREATE TABLE workflow_versions (
      workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
      tenant_id uuid NOT NULL,
      number int NOT NULL,
      name text,
      description text,
      dag_definition jsonb NOT NULL,
      config_snapshot jsonb,
      exposed_outputs jsonb,
      knowledge_base_snapshot jsonb,
      published_at timestamptz,
      active boolean NOT NULL DEFAULT false,
      reverted_from int,
      saved_by uuid,
      published_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workflow_id, number),
      CONSTRAINT draft_never_active CHECK (NOT active OR published_at IS NOT NULL)
    )`
  yield* sql`CREATE UNIQUE INDEX workflow_versions_one_active ON workflow_versions (workflow_id) WHERE active`
  yield* sql`CREATE UNIQUE INDEX workflow_versions_name ON workflow_versions (workflow_id, name) WHERE name IS NOT NULL`
  yield* sql`
    CREATE TABLE voice_trees (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      active_version_id uuid,
      next_number int NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE voice_tree_versions (
      id uuid PRIMARY KEY,
      tree_id uuid NOT NULL REFERENCES voice_trees(id) ON DELETE CASCADE,
      number int NOT NULL,
      content jsonb NOT NULL,
      published_at timestamptz,
      superseded_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tree_id, number)
    )`
})
