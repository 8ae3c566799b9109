import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Conflict } from "./Errors.js"
import { WorkflowId } from "./Ids.js"
import * as S from "./Schedule.js"
import * as Security from "./Security.js"

const workflowId = HttpApiSchema.param("id", WorkflowId)

/** An AI Employee's one schedule (builders manage it). */
export class SchedulesApi extends HttpApiGroup.make("schedules")
  .add(
    HttpApiEndpoint.put("put")`/workflows/${workflowId}/schedule`
      .setPayload(S.ScheduleRequest)
      .addSuccess(S.Schedule)
      .annotate(
        OpenApi.Description,
        "Creates (disabled) or replaces the AI Employee's schedule. An invalid cron or time zone is 400 " +
          "INVALID_SCHEDULE with the field in details. Replacing an enabled schedule keeps it enabled and recomputes next_fire_at."
      )
  )
  .add(HttpApiEndpoint.get("get")`/workflows/${workflowId}/schedule`.addSuccess(S.Schedule))
  .add(
    HttpApiEndpoint.post("enable")`/workflows/${workflowId}/schedule/enable`
      .addSuccess(S.Schedule)
      .annotate(
        OpenApi.Description,
        "409 NOT_PUBLISHED without a published version. Each fire starts one run of the version active at fire time " +
          "(trigger_type schedule, scheduled_fire_time set), however many processes run."
      )
  )
  .add(HttpApiEndpoint.post("disable")`/workflows/${workflowId}/schedule/disable`.addSuccess(S.Schedule))
  .add(HttpApiEndpoint.del("remove")`/workflows/${workflowId}/schedule`.addSuccess(HttpApiSchema.NoContent))
  .addError(Conflict)
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}
