import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { decodeRows, JsonObject, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { ModelUsage } from "../../schemas/Run.js"

export const DefinitionRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  agent_type: Schema.String,
  type_version: Schema.String,
  preset: Schema.NullOr(Schema.String),
  system_prompt_template: Schema.String,
  input_schema: Schema.NullOr(JsonObject),
  llm_config: JsonObject,
  type_config: JsonObject,
  created_by: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type DefinitionRow = typeof DefinitionRow.Type

const definitionRows = decodeRows("agent_definitions", DefinitionRow)

export const ExecutionRow = Schema.Struct({
  id: Schema.String,
  agent_type: Schema.String,
  status: Schema.Literal("running", "completed", "failed"),
  output: Schema.Unknown,
  tokens_used: Schema.Number,
  token_breakdown: Schema.Record({ key: Schema.String, value: ModelUsage }),
  error: Schema.NullOr(Schema.String),
  is_dry_run: Schema.Boolean,
  workflow_id: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  finished_at: Schema.NullOr(Timestamp)
})
export type ExecutionRow = typeof ExecutionRow.Type

const executionRows = decodeRows("test_executions", ExecutionRow)

export const toExecution = ({ error, ...row }: ExecutionRow) => ({ ...row, ...(error !== null ? { error } : {}) })

type DefinitionInput = Omit<DefinitionRow, "id" | "created_by" | "created_at" | "updated_at">

/** Agent definitions and test executions, scoped to the caller's tenant. */
export class AgentsRepo extends Effect.Service<AgentsRepo>()("AgentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const json = (d: DefinitionInput) => ({
      ...d,
      input_schema: d.input_schema === null ? null : JSON.stringify(d.input_schema),
      llm_config: JSON.stringify(d.llm_config),
      type_config: JSON.stringify(d.type_config)
    })
    const page = <A>(
      table: "agent_definitions" | "test_executions",
      rows: <E, R>(self: Effect.Effect<ReadonlyArray<unknown>, E, R>) => Effect.Effect<ReadonlyArray<A>, E, R>,
      scope: Principal,
      params: PageParams
    ) =>
      Effect.all([
        sql`SELECT * FROM ${sql(table)} WHERE tenant_id = ${scope.tenantId} ORDER BY created_at DESC, id
          LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(rows),
        sql`SELECT count(*)::int AS total FROM ${sql(table)} WHERE tenant_id = ${scope.tenantId}`.pipe(
          decodeRows("query", Schema.Struct({ total: Schema.Number }))
        )
      ]).pipe(Effect.map(([rows, [c]]) => ({ rows, total: c?.total ?? 0 })), Effect.orDie)

    return traced("AgentsRepo", {
      insertDefinition: (scope: Principal, id: string, d: DefinitionInput) =>
        sql`INSERT INTO agent_definitions ${sql.insert({ ...json(d), id, tenant_id: scope.tenantId, created_by: scope.userId })} RETURNING *`.pipe(
          definitionRows
        ).pipe(Effect.map((rows) => rows[0]), Effect.orDie),
      getDefinition: (scope: Principal, id: string) =>
        sql`SELECT * FROM agent_definitions WHERE tenant_id = ${scope.tenantId} AND id = ${id}`.pipe(definitionRows).pipe(
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        ),
      replaceDefinition: (scope: Principal, id: string, d: DefinitionInput) =>
        sql`UPDATE agent_definitions SET ${sql.update({ ...json(d), updated_at: new Date() })}
          WHERE tenant_id = ${scope.tenantId} AND id = ${id} RETURNING *`.pipe(definitionRows).pipe(
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        ),
      deleteDefinition: (scope: Principal, id: string) =>
        sql`DELETE FROM agent_definitions WHERE tenant_id = ${scope.tenantId} AND id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      listDefinitions: (scope: Principal, params: PageParams) => page("agent_definitions", definitionRows, scope, params),
      startExecution: (
        scope: Principal,
        e: { id: string; agent_type: string; agent_config: unknown; inputs: unknown; is_dry_run: boolean; workflow_id: string | null }
      ) =>
        sql`INSERT INTO test_executions ${
          sql.insert({
            ...e,
            agent_config: JSON.stringify(e.agent_config),
            inputs: JSON.stringify(e.inputs),
            status: "running",
            tenant_id: scope.tenantId,
            created_by: scope.userId
          })
        }`.pipe(Effect.asVoid, Effect.orDie),
      finishExecution: (id: string, r: { status: "completed" | "failed"; output: unknown; tokens: number; breakdown: unknown; error: string | null }) =>
        sql`UPDATE test_executions SET status = ${r.status}, output = ${JSON.stringify(r.output ?? null)}::jsonb,
            tokens_used = ${r.tokens}, token_breakdown = ${JSON.stringify(r.breakdown)}::jsonb, error = ${r.error}, finished_at = now()
          WHERE id = ${id} RETURNING *`.pipe(executionRows).pipe(Effect.map((rows) => rows[0]), Effect.orDie),
      getExecution: (scope: Principal, id: string) =>
        sql`SELECT * FROM test_executions WHERE tenant_id = ${scope.tenantId} AND id = ${id}`.pipe(executionRows).pipe(
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        ),
      listExecutions: (scope: Principal, params: PageParams) => page("test_executions", executionRows, scope, params)
    })
  })
}) {}
