import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import type { WorkflowConfig } from "../../schemas/Workflow.js"
import { defaultWorkflowConfig } from "../../schemas/Workflow.js"
import type { TokenUsage } from "../models/ChatModel.js"
import { checkJsonSchema } from "../dag/JsonSchema.js"
import { isTerminal, type RunEvent, type RunStatus, transitionOf } from "../RunStatus.js"

export interface RunRecord {
  readonly id: string
  readonly tenant_id: string
  readonly workflow_id: string
  readonly workflow_name: string
  readonly version: number
  readonly status: RunStatus
  readonly trigger_type: string
  readonly is_dry_run: boolean
  readonly input_params: Record<string, unknown>
  readonly parent_run_id: string | null
  readonly parent_node_id: string | null
  readonly parent_deferred_token: string | null
  readonly session_id: string | null
}

export interface LoadedRun {
  readonly run: RunRecord
  readonly dag: Record<string, unknown>
  readonly config: WorkflowConfig
}

/** The SQL the run engine needs; status changes only ever go through `transition`. */
export class RunStore extends Context.Tag("RunStore")<RunStore, {
  readonly load: (runId: string) => Effect.Effect<LoadedRun>
  readonly status: (runId: string) => Effect.Effect<RunStatus | undefined>
  /** Applies a state-machine event atomically; undefined when the run's status does not allow it. */
  readonly transition: (
    runId: string,
    event: RunEvent,
    fields?: { readonly error?: string; readonly output?: unknown; readonly named_outputs?: Record<string, unknown> }
  ) => Effect.Effect<RunStatus | undefined>
  readonly completedStep: (runId: string, nodeId: string) => Effect.Effect<{ readonly output: unknown } | undefined>
  readonly startStep: (
    run: { readonly id: string; readonly tenant_id: string },
    node: { id: string; type: string; name?: string | undefined },
    input: unknown
  ) => Effect.Effect<string>
  readonly finishStep: (
    stepId: string,
    status: "completed" | "failed" | "cancelled",
    result: { readonly output?: unknown; readonly error?: string; readonly usage?: Readonly<Record<string, TokenUsage>> }
  ) => Effect.Effect<void>
  readonly skipSteps: (
    run: { readonly id: string; readonly tenant_id: string },
    nodes: ReadonlyArray<{ id: string; type: string; name?: string | undefined }>
  ) => Effect.Effect<void>
  readonly pendingRunIds: Effect.Effect<ReadonlyArray<string>>
  /**
   * The child run of a call_aie node, pinned to the target's active version; an error message
   * when the target cannot run. Created once: the id is derived from the parent run and node.
   */
  readonly createChild: (
    parent: Pick<RunRecord, "id" | "tenant_id" | "trigger_type" | "is_dry_run">,
    workflowId: string,
    childId: string,
    parentNodeId: string,
    parentToken: string,
    input: Record<string, unknown>
  ) => Effect.Effect<string | undefined>
}>() {
  static readonly layer = Layer.effect(
    RunStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const stepPosition = (runId: string) => sql`(SELECT count(*)::int FROM run_steps WHERE run_id = ${runId})`

      return {
        load: (runId) =>
          Effect.gen(function*() {
            const [run] = yield* sql<RunRecord>`SELECT * FROM runs WHERE id = ${runId}`
            if (run === undefined) return yield* Effect.dieMessage(`run ${runId} not found`)
            const [version] = yield* sql<{ dag_definition: Record<string, unknown>; config_snapshot: WorkflowConfig | null }>`
              SELECT dag_definition, config_snapshot FROM workflow_versions
              WHERE workflow_id = ${run.workflow_id} AND number = ${run.version}`
            if (version === undefined) return yield* Effect.dieMessage(`version ${run.version} of run ${runId} is gone`)
            return {
              run,
              dag: version.dag_definition,
              config: { ...defaultWorkflowConfig, ...version.config_snapshot }
            }
          }).pipe(Effect.orDie),
        status: (runId) =>
          sql<{ status: RunStatus }>`SELECT status FROM runs WHERE id = ${runId}`.pipe(
            Effect.map((rows) => rows[0]?.status),
            Effect.orDie
          ),
        transition: (runId, event, fields = {}) => {
          const { from, to } = transitionOf(event)
          return sql<{ status: RunStatus }>`UPDATE runs SET status = ${to}, updated_at = now(),
              started_at = ${to === "running" ? sql`COALESCE(started_at, now())` : sql`started_at`},
              finished_at = ${isTerminal(to) ? sql`now()` : sql`finished_at`},
              error = ${fields.error ?? null},
              output = ${fields.output === undefined ? sql`output` : sql`${JSON.stringify(fields.output)}::jsonb`},
              named_outputs = ${fields.named_outputs === undefined ? sql`named_outputs` : sql`${JSON.stringify(fields.named_outputs)}::jsonb`}
            WHERE id = ${runId} AND status IN ${sql.in(from)} RETURNING status`.pipe(
            Effect.map((rows) => rows[0]?.status),
            Effect.orDie
          )
        },
        completedStep: (runId, nodeId) =>
          sql<{ output: unknown }>`SELECT output FROM run_steps WHERE run_id = ${runId} AND node_id = ${nodeId}
            AND status = 'completed'`.pipe(Effect.map((rows) => rows[0]), Effect.orDie),
        startStep: (run, node, input) =>
          sql<{ id: string }>`INSERT INTO run_steps
              (id, run_id, tenant_id, node_id, node_type, node_name, status, input, position, started_at)
            VALUES (${randomUUID()}, ${run.id}, ${run.tenant_id}, ${node.id}, ${node.type}, ${node.name ?? null}, 'running',
              ${JSON.stringify(input ?? null)}::jsonb, ${stepPosition(run.id)}, now())
            ON CONFLICT (run_id, node_id) DO UPDATE SET status = 'running', attempt = run_steps.attempt + 1
            RETURNING id`.pipe(Effect.map((rows) => rows[0]!.id), Effect.orDie),
        finishStep: (stepId, status, result) =>
          sql`UPDATE run_steps SET status = ${status}, finished_at = now(),
              output = ${result.output === undefined ? null : JSON.stringify(result.output)}::jsonb,
              error = ${result.error ?? null},
              token_usage = ${JSON.stringify(result.usage ?? {})}::jsonb
            WHERE id = ${stepId}`.pipe(Effect.asVoid, Effect.orDie),
        skipSteps: (run, nodes) =>
          Effect.forEach(nodes, (node) =>
            sql`INSERT INTO run_steps (id, run_id, tenant_id, node_id, node_type, node_name, status, position, finished_at)
              VALUES (${randomUUID()}, ${run.id}, ${run.tenant_id}, ${node.id}, ${node.type}, ${node.name ?? null}, 'skipped',
                ${stepPosition(run.id)}, now())
              ON CONFLICT (run_id, node_id) DO NOTHING`, { discard: true }).pipe(Effect.orDie),
        createChild: (parent, workflowId, childId, parentNodeId, parentToken, input) =>
          Effect.gen(function*() {
            const [target] = yield* sql<{ name: string; active_version: number | null; input_schema: unknown }>`
              SELECT w.name, w.active_version, v.dag_definition -> 'input_schema' AS input_schema
              FROM workflows w LEFT JOIN workflow_versions v ON v.workflow_id = w.id AND v.number = w.active_version
              WHERE w.id = ${workflowId} AND w.tenant_id = ${parent.tenant_id} AND w.archived_at IS NULL`
            if (target === undefined || target.active_version === null) return "the called AI Employee has no published version"
            if (target.input_schema !== null && target.input_schema !== undefined) {
              const problems = checkJsonSchema(target.input_schema, input)
              if (problems.length > 0) {
                return `input_params do not match the called AI Employee: ${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}`
              }
            }
            yield* sql`INSERT INTO runs ${
              sql.insert({
                id: childId,
                tenant_id: parent.tenant_id,
                workflow_id: workflowId,
                workflow_name: target.name,
                version: target.active_version,
                status: "pending",
                trigger_type: parent.trigger_type,
                is_dry_run: parent.is_dry_run,
                input_params: JSON.stringify(input),
                parent_run_id: parent.id,
                parent_node_id: parentNodeId,
                parent_deferred_token: parentToken
              })
            } ON CONFLICT (id) DO NOTHING`
            return undefined
          }).pipe(Effect.orDie),
        pendingRunIds: sql<{ id: string }>`SELECT id FROM runs WHERE status IN ('pending', 'running', 'paused') AND NOT held`.pipe(
          Effect.map((rows) => rows.map((r) => r.id)),
          Effect.orDie
        )
      }
    })
  )
}
