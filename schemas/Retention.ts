import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { WorkflowId } from "./Ids.js"
import * as Security from "./Security.js"

/** A retention hold: what it is on, and whether it holds now. */
export const RetentionHold = Schema.Struct({
  resource_type: Schema.Literal("run", "workflow"),
  id: Schema.UUID,
  retention_hold: Schema.Boolean.annotations({
    description: "While true, the run (or every run of the AI Employee) is kept past its tenant's retention period"
  })
})

/** The caller's tenant's retention, as the sweep applies it. */
export const RetentionPolicy = Schema.Struct({
  run_retention_days: Schema.Int.annotations({
    description: "Finished runs (with their steps, events, spans and HITL requests) and integration executions are removed this many days after they ended"
  }),
  run_detail_retention_days: Schema.NullOr(Schema.Int).annotations({
    description: "When set, a finished run's spans and streamed tokens are removed this many days after it ended; the run, its steps and its other events stay"
  }),
  max_run_retention_days: Schema.Int.annotations({ description: "The platform's maximum (RUN_RETENTION_MAX_DAYS)" }),
  held_workflows: Schema.Int,
  held_runs: Schema.Int
})

const runId = HttpApiSchema.param("run_id", Schema.UUID)
const workflowId = HttpApiSchema.param("id", WorkflowId)

const HOLD = "A hold keeps the run (or every run of the AI Employee) past its tenant's retention period, until it is released"

export class RetentionApi extends HttpApiGroup.make("retention")
  .add(
    HttpApiEndpoint.get("policy", "/retention").addSuccess(RetentionPolicy).annotate(
      OpenApi.Description,
      "The caller's tenant's retention: finished runs are removed `run_retention_days` after they ended (tenant setting `run_retention_days`, default RUN_RETENTION_DAYS, at most RUN_RETENTION_MAX_DAYS); running and paused runs never are"
    )
  )
  .add(HttpApiEndpoint.put("holdRun")`/runs/${runId}/retention-hold`.addSuccess(RetentionHold).annotate(OpenApi.Description, `${HOLD} (run admins)`))
  .add(HttpApiEndpoint.del("releaseRun")`/runs/${runId}/retention-hold`.addSuccess(RetentionHold).annotate(OpenApi.Description, "Releases a run's hold"))
  .add(
    HttpApiEndpoint.put("holdWorkflow")`/workflows/${workflowId}/retention-hold`.addSuccess(RetentionHold).annotate(
      OpenApi.Description,
      `${HOLD} (builders of the AI Employee)`
    )
  )
  .add(
    HttpApiEndpoint.del("releaseWorkflow")`/workflows/${workflowId}/retention-hold`.addSuccess(RetentionHold).annotate(
      OpenApi.Description,
      "Releases an AI Employee's hold"
    )
  )
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}
