import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as D from "./DocumentTrigger.js"
import { Conflict } from "./Errors.js"
import { DocumentTriggerId, NudgeId, WorkflowId } from "./Ids.js"
import * as E from "./InboundEmail.js"
import * as N from "./Nudge.js"
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
  .add(
    HttpApiEndpoint.post("previewSchedule", "/schedule-preview")
      .setPayload(S.SchedulePreviewRequest)
      .addSuccess(S.SchedulePreview)
      .annotate(
        OpenApi.Description,
        "The next `count` (default 5, at most 20) fire times of a cron expression in a time zone, parsed exactly as a saved schedule is; " +
          "400 INVALID_SCHEDULE naming the field otherwise. Saves nothing."
      )
  )
  .addError(Conflict)
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}

const bindingId = HttpApiSchema.param("binding_id", DocumentTriggerId)

/** Document trigger bindings: an AI Employee runs for each matching document stored in a knowledge base. */
export class DocumentTriggersApi extends HttpApiGroup.make("documentTriggers")
  .add(
    HttpApiEndpoint.post("create")`/workflows/${workflowId}/document-triggers`
      .setPayload(D.DocumentTriggerRequest)
      .addSuccess(D.DocumentTrigger, { status: 201 })
      .annotate(
        OpenApi.Description,
        "409 DOCUMENT_TRIGGER_OVERLAP when another binding of this AI Employee watches the same knowledge base with one " +
          "folder prefix containing the other, intersecting mime types and fire_on. Each document version stored (JSON or " +
          "multipart) that matches an enabled binding starts one run (trigger_type document) with input " +
          "`{document: {id, knowledge_base_id, title, folder_path, mime_type, version}}`, after the document is committed and indexed."
      )
  )
  .add(HttpApiEndpoint.get("list")`/workflows/${workflowId}/document-triggers`.addSuccess(D.DocumentTriggerList))
  .add(HttpApiEndpoint.get("get")`/workflows/${workflowId}/document-triggers/${bindingId}`.addSuccess(D.DocumentTrigger))
  .add(
    HttpApiEndpoint.put("replace")`/workflows/${workflowId}/document-triggers/${bindingId}`
      .setPayload(D.DocumentTriggerRequest)
      .addSuccess(D.DocumentTrigger)
  )
  .add(HttpApiEndpoint.del("remove")`/workflows/${workflowId}/document-triggers/${bindingId}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.post("enable")`/workflows/${workflowId}/document-triggers/${bindingId}/enable`.addSuccess(D.DocumentTrigger))
  .add(HttpApiEndpoint.post("disable")`/workflows/${workflowId}/document-triggers/${bindingId}/disable`.addSuccess(D.DocumentTrigger))
  .addError(Conflict)
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}

const messageId = HttpApiSchema.param("message_id", Schema.UUID)

/** Inbound email of an AI Employee: its address, and the messages delivered to it. */
export class InboundEmailApi extends HttpApiGroup.make("inboundEmail")
  .add(
    HttpApiEndpoint.put("settings")`/workflows/${workflowId}/email`
      .setPayload(E.EmailSettingsRequest)
      .addSuccess(E.EmailSettings)
      .annotate(
        OpenApi.Description,
        "Enables (409 NOT_PUBLISHED without a published version) or disables the address `<workflow_id>@INBOUND_EMAIL_DOMAIN`. " +
          "Each message the SMTP listener (INBOUND_SMTP_PORT) accepts for it is stored, then starts one run (trigger_type email; " +
          "one per Message-ID) with the message as input."
      )
  )
  .add(HttpApiEndpoint.get("getSettings")`/workflows/${workflowId}/email`.addSuccess(E.EmailSettings))
  .add(HttpApiEndpoint.get("message")`/workflows/${workflowId}/email/messages/${messageId}`.addSuccess(E.InboundEmailMessage))
  .addError(Conflict)
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}

const nudgeId = HttpApiSchema.param("id", NudgeId)

/** Nudge cards sent by notify_user nodes to the caller. */
export class NudgesApi extends HttpApiGroup.make("nudges")
  .add(HttpApiEndpoint.get("list", "/nudges").addSuccess(N.NudgeList).annotate(OpenApi.Description, "The caller's open cards, newest first."))
  .add(
    HttpApiEndpoint.post("respond")`/nudges/${nudgeId}/respond`
      .setPayload(N.NudgeRespondRequest)
      .addSuccess(N.Nudge)
      .annotate(
        OpenApi.Description,
        "Answers an open card (409 NUDGE_CLOSED once answered, closed or expired; 400 INVALID_NUDGE_RESPONSE for a value " +
          "that is not one of its actions). Park mode resumes the waiting run with the answer; collect mode starts " +
          "trigger_workflow_id with `{nudge: {card_id, card_ref, value, responded_by, source_run_id}}`."
      )
  )
  .addError(Conflict)
  .middleware(Security.Authentication)
  .prefix("/api/v1/workflow")
{}
