import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { RunnableWorkflows } from "../../runtime/run/Ports.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import { conflict, notFound, unprocessable } from "../../schemas/Errors.js"
import { Config, type ConfigRequest } from "../../schemas/Eval.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { isRecord } from "../../schemas/Records.js"
import { AiEmployees } from "../ports/AiEmployees.js"
import { Rubrics } from "./Rubrics.js"

const ConfigRow = Schema.Struct({
  ...Config.fields,
  tenant_id: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp
})
export type ConfigRow = typeof ConfigRow.Type
export const configRows = decodeRows("eval_configs", ConfigRow)

const toConfig = ({ tenant_id: _, ...row }: ConfigRow) => row

/** The agent node `nodeId` of a saved DAG, if it is one. */
export const agentNodeOf = (dag: unknown, nodeId: string) => {
  const nodes = isRecord(dag) && Array.isArray(dag.nodes) ? dag.nodes : []
  const node = nodes.find((n) => isRecord(n) && n.id === nodeId)
  return isRecord(node) && node.type === "agent" && isRecord(node.agent_config) ? node : undefined
}

/** Eval configs: what is scored (the AI Employee, or one agent node alone), by which rubric and judge. */
export class Configs extends Effect.Service<Configs>()("Configs", {
  dependencies: [Rubrics.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const aiEmployees = yield* AiEmployees
    const runnable = yield* RunnableWorkflows
    const rubrics = yield* Rubrics

    const find = (principal: Principal, id: string) =>
      sql`SELECT * FROM eval_configs WHERE tenant_id = ${principal.tenantId} AND id = ${id}`.pipe(
        configRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Eval config")) : Effect.succeed(rows[0]))
      )

    const checked = (principal: Principal, body: typeof ConfigRequest.Type) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const workflow = yield* aiEmployees.visible(principal, body.workflow_id as WorkflowId)
        yield* rubrics.find(principal, body.rubric_id)
        if (body.target_type === "agent") {
          const version = yield* runnable.version(workflow.id, workflow.latest_version)
          if (body.target_node_id === undefined || agentNodeOf(version?.dag, body.target_node_id) === undefined) {
            return yield* unprocessable("EVAL_TARGET_INVALID", "An agent target names an agent node of the AI Employee's DAG in target_node_id", [{
              path: ["target_node_id"],
              message: "not an agent node"
            }])
          }
        }
      })

    const fields = (body: typeof ConfigRequest.Type) => ({
      workflow_id: body.workflow_id,
      name: body.name,
      target_type: body.target_type,
      target_node_id: body.target_type === "agent" ? body.target_node_id ?? null : null,
      rubric_id: body.rubric_id,
      judge_model: body.judge_model ?? null,
      simulator_model: body.simulator_model ?? null,
      simulator_instructions: body.simulator_instructions ?? null,
      max_turns: body.max_turns ?? null,
      search_config: body.search_config === undefined ? null : JSON.stringify(body.search_config)
    })

    return traced("Configs", {
      create: (principal: Principal, body: typeof ConfigRequest.Type) =>
        Effect.gen(function*() {
          yield* checked(principal, body)
          const [row] = yield* sql`INSERT INTO eval_configs ${sql.insert({ id: randomUUID(), tenant_id: principal.tenantId, ...fields(body) })} RETURNING *`
            .pipe(configRows, Effect.orDie)
          return toConfig(row)
        }),
      replace: (principal: Principal, id: string, body: typeof ConfigRequest.Type) =>
        Effect.gen(function*() {
          yield* find(principal, id)
          yield* checked(principal, body)
          const f = fields(body)
          const [row] = yield* sql`UPDATE eval_configs SET workflow_id = ${f.workflow_id}, name = ${f.name}, target_type = ${f.target_type},
            target_node_id = ${f.target_node_id}, rubric_id = ${f.rubric_id}, judge_model = ${f.judge_model}, simulator_model = ${f.simulator_model},
            simulator_instructions = ${f.simulator_instructions}, max_turns = ${f.max_turns}, search_config = ${f.search_config}::jsonb, updated_at = now()
            WHERE id = ${id} RETURNING *`.pipe(configRows, Effect.orDie)
          return toConfig(row)
        }),
      remove: (principal: Principal, id: string) =>
        Effect.gen(function*() {
          yield* requireBuilder(principal)
          yield* find(principal, id)
          const [used] = yield* sql`SELECT id FROM eval_runs WHERE config_id = ${id} LIMIT 1`.pipe(
            decodeRows("eval_runs", Schema.Struct({ id: Schema.String }))
          ).pipe(Effect.orDie)
          if (used !== undefined) return yield* conflict("EVAL_CONFIG_IN_USE", `The eval run ${used.id} uses this config`)
          yield* sql`DELETE FROM eval_configs WHERE id = ${id}`.pipe(Effect.orDie)
        }),
      list: (principal: Principal, workflowId: string | undefined) =>
        Effect.zipRight(
          requireReader(principal),
          sql`SELECT * FROM eval_configs WHERE tenant_id = ${principal.tenantId} ${workflowId !== undefined ? sql`AND workflow_id = ${workflowId}` : sql``}
            ORDER BY created_at DESC, id`.pipe(configRows, Effect.orDie)
        ).pipe(Effect.map((rows) => ({ items: rows.map(toConfig) }))),
      get: (principal: Principal, id: string) => Effect.zipRight(requireReader(principal), Effect.map(find(principal, id), toConfig)),
      find
    })
  })
}) {}
