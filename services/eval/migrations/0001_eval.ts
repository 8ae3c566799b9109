import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Evaluation: datasets (the CSV and the rows a mapping materialised), rubrics, configs, runs and
 * one result per run and row. A result is claimed with a lease, so a row whose scorer died is
 * scored again elsewhere and a finished row never is.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE eval_datasets (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      workflow_id uuid NOT NULL,
      name text NOT NULL,
      headers text[] NOT NULL,
      csv_data text NOT NULL,
      row_count int NOT NULL,
      input_map jsonb,
      expected_output_map jsonb,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX eval_datasets_workflow ON eval_datasets (tenant_id, workflow_id)`
  yield* sql`
    CREATE TABLE eval_dataset_rows (
      id uuid PRIMARY KEY,
      dataset_id uuid NOT NULL REFERENCES eval_datasets(id) ON DELETE CASCADE,
      position int NOT NULL,
      inputs jsonb NOT NULL,
      expected_output jsonb,
      simulator_instructions text,
      UNIQUE (dataset_id, position)
    )`
  yield* sql`
    CREATE TABLE eval_rubrics (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      workflow_id uuid NOT NULL,
      name text NOT NULL,
      rubric_schema jsonb NOT NULL,
      rubric_instructions text NOT NULL,
      variable_catalog jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE eval_configs (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      workflow_id uuid NOT NULL,
      name text NOT NULL,
      target_type text NOT NULL,
      target_node_id text,
      rubric_id uuid NOT NULL REFERENCES eval_rubrics(id),
      judge_model text,
      simulator_model text,
      simulator_instructions text,
      max_turns int,
      search_config jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE eval_runs (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      workflow_id uuid NOT NULL,
      config_id uuid NOT NULL REFERENCES eval_configs(id),
      dataset_id uuid NOT NULL REFERENCES eval_datasets(id) ON DELETE CASCADE,
      version int NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      is_preview boolean NOT NULL DEFAULT false,
      total_rows int NOT NULL,
      completed_rows int NOT NULL DEFAULT 0,
      failed_rows int NOT NULL DEFAULT 0,
      aggregate_metrics jsonb,
      error text,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz
    )`
  yield* sql`CREATE INDEX eval_runs_recent ON eval_runs (tenant_id, created_at DESC)`
  yield* sql`
    CREATE TABLE eval_results (
      id uuid PRIMARY KEY,
      run_id uuid NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
      row_id uuid NOT NULL,
      position int NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      lease_until timestamptz,
      attempts int NOT NULL DEFAULT 0,
      actual_output jsonb,
      simulator_transcript jsonb,
      rubric_scores jsonb,
      token_usage jsonb NOT NULL DEFAULT '{}'::jsonb,
      duration_ms double precision,
      workflow_run_id uuid,
      error text,
      UNIQUE (run_id, row_id)
    )`
  yield* sql`CREATE INDEX eval_results_claimable ON eval_results (run_id, position) WHERE status IN ('pending', 'running')`
})
