import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { RateLimiter } from "../../platform/RateLimiter.js"
import { CurrentClientAddress } from "../../platform/RequestContext.js"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { RunModule } from "../../runtime/run/RunModule.js"
import { conflict, notFound, TooManyRequests } from "../../schemas/Errors.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import { acceptedRun } from "./Runs.js"

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
          decodeRows("workflows", Schema.Struct({ tenant_id: Schema.String, name: Schema.String, active_version: Schema.NullOr(Schema.Number) }))
        ).pipe(Effect.orDie)
        if (workflow === undefined) return yield* notFound("AI Employee")
        if (workflow.active_version === null) return yield* conflict("NOT_PUBLISHED", "This AI Employee has no published version to run")
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

    return traced("PublicApp", { start })
  })
}) {}
