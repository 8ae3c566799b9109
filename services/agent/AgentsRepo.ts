import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"

export interface DefinitionRow {
  readonly id: string
  readonly name: string
  readonly agent_type: string
  readonly type_version: string
  readonly preset: string | null
  readonly system_prompt_template: string
  readonly input_schema: Record<string, unknown> | null
  readonly llm_config: Record<string, unknown>
  readonly type_config: Record<string, unknown>
  readonly created_by: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

export interface ExecutionRow {
  readonly id: string
  readonly agent_type: string
  readonly status: "running" | "completed" | "failed"
  readonly output: unknown
  readonly tokens_used: number
  readonly token_breakdown: Record<string, { prompt_tokens: number; completion_tokens: number; total_tokens: number }>
  readonly error: string | null
  readonly is_dry_run: boolean
  readonly workflow_id: string | null
  readonly created_at: Date
  readonly finished_at: Date | null
}

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
    const page = <A extends object>(table: "agent_definitions" | "test_executions", scope: Principal, params: PageParams) =>
      Effect.all([
        sql<A>`SELECT * FROM ${sql(table)} WHERE tenant_id = ${scope.tenantId} ORDER BY created_at DESC, id
          LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`,
        sql<{ total: number }>`SELECT count(*)::int AS total FROM ${sql(table)} WHERE tenant_id = ${scope.tenantId}`
      ]).pipe(Effect.map(([rows, [c]]) => ({ rows, total: c?.total ?? 0 })), Effect.orDie)

    return {
      insertDefinition: (scope: Principal, id: string, d: DefinitionInput) =>
        sql<DefinitionRow>`INSERT INTO agent_definitions ${
          sql.insert({ ...json(d), id, tenant_id: scope.tenantId, created_by: scope.userId })
        } RETURNING *`.pipe(Effect.map((rows) => rows[0]!), Effect.orDie),
      getDefinition: (scope: Principal, id: string) =>
        sql<DefinitionRow>`SELECT * FROM agent_definitions WHERE tenant_id = ${scope.tenantId} AND id = ${id}`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        ),
      replaceDefinition: (scope: Principal, id: string, d: DefinitionInput) =>
        sql<DefinitionRow>`UPDATE agent_definitions SET ${sql.update({ ...json(d), updated_at: new Date() })}
          WHERE tenant_id = ${scope.tenantId} AND id = ${id} RETURNING *`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        ),
      deleteDefinition: (scope: Principal, id: string) =>
        sql`DELETE FROM agent_definitions WHERE tenant_id = ${scope.tenantId} AND id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      listDefinitions: (scope: Principal, params: PageParams) => page<DefinitionRow>("agent_definitions", scope, params),
      startExecution: (scope: Principal, e: { id: string; agent_type: string; agent_config: unknown; inputs: unknown; is_dry_run: boolean; workflow_id: string | null }) =>
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
        sql<ExecutionRow>`UPDATE test_executions SET status = ${r.status}, output = ${JSON.stringify(r.output ?? null)}::jsonb,
            tokens_used = ${r.tokens}, token_breakdown = ${JSON.stringify(r.breakdown)}::jsonb, error = ${r.error}, finished_at = now()
          WHERE id = ${id} RETURNING *`.pipe(Effect.map((rows) => rows[0]!), Effect.orDie),
      getExecution: (scope: Principal, id: string) =>
        sql<ExecutionRow>`SELECT * FROM test_executions WHERE tenant_id = ${scope.tenantId} AND id = ${id}`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        ),
      listExecutions: (scope: Principal, params: PageParams) => page<ExecutionRow>("test_executions", scope, params)
    }
  })
}) {}
