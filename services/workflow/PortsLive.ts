import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeRows } from "../../platform/Rows.js"
import { AiEmployees } from "../ports/AiEmployees.js"
import { McpBindings } from "../ports/McpBindings.js"
import { RunAccess } from "../ports/RunAccess.js"
import { Hitl } from "./Hitl.js"
import { Runs } from "./Runs.js"
import { RunsRepo } from "./RunsRepo.js"
import { RunStartRate } from "./RunStartRate.js"
import { RunStream } from "./RunStream.js"
import { VersionsRepo } from "./VersionsRepo.js"
import { configOf, WorkflowsRepo } from "./WorkflowsRepo.js"

/** The workflow service's side of the AI Employee lookups other services make. */
export const AiEmployeesLive = Layer.effect(
  AiEmployees,
  Effect.gen(function*() {
    const workflows = yield* WorkflowsRepo
    const versions = yield* VersionsRepo
    return {
      visible: (principal, id) =>
        workflows.visible(principal, id).pipe(Effect.map((w) => ({
          id: w.id,
          name: w.name,
          description: w.description,
          icon: w.icon,
          interaction_type: w.interaction_type,
          active_version: w.active_version,
          latest_version: w.latest_version,
          config: configOf(w),
          legacy_steps: w.legacy_steps,
          knowledge_base_ids: w.knowledge_base_ids
        }))),
      inputSchema: (principal, id, version) =>
        versions.get(principal, id, version).pipe(
          Effect.map((v) => Option.getOrUndefined(v)?.dag_definition.input_schema ?? null),
          Effect.orDie
        ),
      configOf: (tenantId, id) => workflows.get({ tenantId }, id).pipe(Effect.map(Option.map(configOf)))
    }
  })
)

/** The workflow service's side of the run access other services have. */
export const RunAccessLive = Layer.effect(
  RunAccess,
  Effect.gen(function*() {
    const runs = yield* Runs
    const repo = yield* RunsRepo
    const stream = yield* RunStream
    const hitl = yield* Hitl
    const rate = yield* RunStartRate
    return {
      get: (principal, runId) => repo.get(principal, runId),
      admitStart: rate.check,
      follow: stream.follow,
      start: (principal, workflowId, input, triggerType, options) =>
        runs.start(principal, workflowId, { input_params: input }, {
          dryRun: false,
          idempotencyKey: undefined,
          triggerType,
          ...(options?.knowledgeBaseIds !== undefined ? { searchOverrides: { knowledge_base_ids: options.knowledgeBaseIds } } : {})
        }),
      hitlRequest: hitl.get,
      respondHitl: hitl.respond
    }
  })
)

/** The workflow service's side of MCP bindings: active versions whose agent steps name the server. */
export const McpBindingsLive = Layer.effect(
  McpBindings,
  Effect.map(SqlClient.SqlClient, (sql) => ({
    boundBy: (tenantId, serverId) =>
      sql`SELECT w.name FROM workflows w
        JOIN workflow_versions v ON v.workflow_id = w.id AND v.number = w.active_version
        WHERE w.tenant_id = ${tenantId} AND w.archived_at IS NULL
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(v.dag_definition->'nodes', '[]'::jsonb)) n
                      WHERE COALESCE(n->'agent_config'->'mcp_server_ids', '[]'::jsonb) ? ${serverId})
        ORDER BY w.name`.pipe(decodeRows("workflows", Schema.Struct({ name: Schema.String }))).pipe(Effect.map((rows) => rows.map((r) => r.name)), Effect.orDie)
  }))
)
