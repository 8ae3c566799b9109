import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { RateLimiter } from "../../platform/RateLimiter.js"
import { CurrentClientAddress } from "../../platform/RequestContext.js"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { RunModule } from "../../runtime/run/RunModule.js"
import { conflict, notFound, TooManyRequests } from "../../schemas/Errors.js"
import { TenantId, type WorkflowId } from "../../schemas/Ids.js"
import { RunStatus, StepStatus } from "../../schemas/RunLifecycle.js"
import { acceptedRun } from "./Runs.js"
import { RunStartRate } from "./RunStartRate.js"

/**
 * Runs started from an AI Employee's public app: no credential, so no principal; the AI Employee
 * names its tenant, and the run records `app_public` and no creator. Each client address may
 * start `PUBLIC_APP_RUNS_PER_MINUTE` runs a minute, counted before anything is read.
 */
export class PublicApp extends Effect.Service<PublicApp>()("PublicApp", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const modules = yield* RunModule
    const limiter = yield* RateLimiter
    const startRate = yield* RunStartRate
    const { publicAppRunsPerMinute } = yield* AppConfig

    const start = (workflowId: WorkflowId, body: { readonly input_params: Record<string, unknown> }) =>
      Effect.gen(function*() {
        const client = (yield* CurrentClientAddress) ?? "unknown"
        const decision = yield* limiter.hit(`public-run:${client}`, publicAppRunsPerMinute, 60)
        if (!decision.allowed) {
          return yield* new TooManyRequests({
            code: "RATE_LIMITED",
            message: "Too many runs started from this address; retry later",
            retry_after_seconds: decision.retryAfterSeconds
          })
        }
        const [workflow] = yield* sql`
          SELECT tenant_id, name, active_version FROM workflows
          WHERE id = ${workflowId} AND public_app AND archived_at IS NULL`.pipe(
          decodeRows("workflows", Schema.Struct({ tenant_id: TenantId, name: Schema.String, active_version: Schema.NullOr(Schema.Number) }))
        ).pipe(Effect.orDie)
        if (workflow === undefined) return yield* notFound("AI Employee")
        if (workflow.active_version === null) return yield* conflict("NOT_PUBLISHED", "This AI Employee has no published version to run")
        yield* startRate.checkVisitor(workflow.tenant_id)
        const run = yield* modules.start({
          tenantId: workflow.tenant_id,
          workflowId,
          version: { number: workflow.active_version, name: workflow.name },
          triggerType: "app_public",
          createdBy: null,
          apiKeyId: null,
          isDryRun: false,
          input: body.input_params
        })
        return acceptedRun(run)
      })

    const PublicWorkflow = Schema.Struct({
      name: Schema.String,
      description: Schema.NullOr(Schema.String),
      icon: Schema.NullOr(Schema.String),
      active_version: Schema.NullOr(Schema.Number),
      input_schema: Schema.Unknown
    })
    const info = (workflowId: WorkflowId) =>
      Effect.gen(function*() {
        const [w] = yield* sql`
          SELECT w.name, w.description, w.icon, w.active_version, v.dag_definition -> 'input_schema' AS input_schema
          FROM workflows w LEFT JOIN workflow_versions v ON v.workflow_id = w.id AND v.number = w.active_version
          WHERE w.id = ${workflowId} AND w.public_app AND w.archived_at IS NULL`.pipe(decodeRows("workflows", PublicWorkflow), Effect.orDie)
        if (w === undefined) return yield* notFound("AI Employee")
        return {
          workflow_id: workflowId,
          name: w.name,
          ...(w.description !== null ? { description: w.description } : {}),
          ...(w.icon !== null ? { icon: w.icon } : {}),
          published: w.active_version !== null,
          input_schema: w.input_schema ?? null,
          runs_per_minute: publicAppRunsPerMinute
        }
      })

    const PublicRunRow = Schema.Struct({
      id: Schema.String,
      status: RunStatus,
      created_at: Schema.DateFromSelf,
      finished_at: Schema.NullOr(Schema.DateFromSelf),
      output: Schema.Unknown,
      named_outputs: Schema.Unknown,
      steps: Schema.Array(Schema.Struct({ node_id: Schema.String, node_name: Schema.NullOr(Schema.String), status: StepStatus }))
    })
    /**
     * Read by id alone (the run names its tenant); the AI Employee must still be a public app. The
     * steps are read by the id given, so that only the run's partition of run_steps is planned.
     */
    const runStatus = (workflowId: WorkflowId, runId: string) =>
      Effect.gen(function*() {
        const [r] = yield* sql`
          SELECT r.id, r.status, r.created_at, r.finished_at, r.output, r.named_outputs,
            COALESCE((SELECT jsonb_agg(jsonb_build_object('node_id', s.node_id, 'node_name', s.node_name, 'status', s.status)
              ORDER BY s.position, s.started_at NULLS LAST) FROM run_steps s WHERE s.run_id = ${runId}), '[]') AS steps
          FROM runs r JOIN workflows w ON w.id = r.workflow_id AND w.public_app AND w.archived_at IS NULL
          WHERE r.id = ${runId} AND r.workflow_id = ${workflowId} AND r.trigger_type = 'app_public'`.pipe(
          decodeRows("runs", PublicRunRow),
          Effect.orDie
        )
        if (r === undefined) return yield* notFound("Run")
        return {
          id: r.id,
          status: r.status,
          created_at: r.created_at,
          ...(r.finished_at !== null ? { finished_at: r.finished_at } : {}),
          steps: r.steps.map((s) => ({ node_id: s.node_id, ...(s.node_name !== null ? { node_name: s.node_name } : {}), status: s.status })),
          output: r.output ?? null,
          named_outputs: (typeof r.named_outputs === "object" && r.named_outputs !== null ? r.named_outputs : {}) as Record<string, unknown>
        }
      })

    return traced("PublicApp", { start, info, runStatus })
  })
}) {}
