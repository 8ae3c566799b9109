import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as C from "./Chat.js"
import { Conflict, TooManyRequests, Unprocessable } from "./Errors.js"
import { IdempotencyHeaders } from "./Idempotency.js"
import { ChatMessageId, ChatSessionId, WorkflowId } from "./Ids.js"
import { HitlRequest } from "./Run.js"
import * as Security from "./Security.js"

const sessionId = HttpApiSchema.param("session_id", ChatSessionId)
const messageId = HttpApiSchema.param("message_id", ChatMessageId)

export class ChatApi extends HttpApiGroup.make("chat")
  .add(HttpApiEndpoint.post("createSession", "/sessions").setPayload(C.CreateSessionRequest).addSuccess(C.ChatSession, { status: 201 }))
  .add(
    HttpApiEndpoint.get("listSessions", "/sessions")
      .setUrlParams(C.SessionListParams)
      .addSuccess(C.ChatSessionPage)
      .annotate(OpenApi.Description, "The caller's sessions, newest activity first; `workflow_id` narrows to one AI Employee")
  )
  .add(
    HttpApiEndpoint.get("currentSession", "/sessions/current")
      .setUrlParams(C.CurrentSessionParams)
      .addSuccess(C.ChatSession)
      .annotate(OpenApi.Description, "The caller's most recent session with this AI Employee, created if there is none")
  )
  .add(HttpApiEndpoint.get("getSession")`/sessions/${sessionId}`.addSuccess(C.ChatSession))
  .add(HttpApiEndpoint.patch("renameSession")`/sessions/${sessionId}`.setPayload(C.RenameSessionRequest).addSuccess(C.ChatSession))
  .add(HttpApiEndpoint.del("deleteSession")`/sessions/${sessionId}`.addSuccess(HttpApiSchema.NoContent))
  .add(
    HttpApiEndpoint.post("sendMessage")`/sessions/${sessionId}/messages`
      .setPayload(C.SendMessageRequest)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(C.MessageAccepted, { status: 202 })
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "Stores the message and starts a run of the chat AI Employee with the whole conversation. While the session's previous " +
          "message is still being answered, the new one is queued (status `queued`) and its run starts when that one ends: " +
          "messages are answered one at a time, in the order they arrived. The assistant message is written when the run ends; " +
          "follow it on /chat/runs/{run_id}/stream (an `assistant_message` event precedes `run_completed`). `is_dry_run`: no tool " +
          "side effects and no assistant message stored. `user_context` and `impersonation_request` need the tenant flag " +
          "`chat_impersonation` (else 403)." +
          " Each message starts a run, so it is paced as POST /workflow/workflows/{id}/run is (the tenant's max_run_starts_per_second, " +
          "fair shares while the platform is overloaded): past that, 429 RATE_LIMITED with Retry-After and nothing is stored."
      )
  )
  .add(
    HttpApiEndpoint.get("listMessages")`/sessions/${sessionId}/messages`
      .addSuccess(C.ChatMessageList)
      .annotate(OpenApi.Description, "Every message of the session, oldest first")
  )
  .add(
    HttpApiEndpoint.get("stream")`/runs/${HttpApiSchema.param("run_id", Schema.UUID)}/stream`
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }))
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(
        OpenApi.Description,
        "The run's events for chat clients and external visitors: the same events, ids and Last-Event-ID resume as " +
          "/workflow/runs/{run_id}/stream, for runs of chat sessions the caller may read (its own; with an API key, the sessions " +
          "of its external channels too)"
      )
  )
  .add(
    HttpApiEndpoint.post("feedback")`/messages/${messageId}/feedback`
      .setPayload(C.FeedbackRequest)
      .addSuccess(C.FeedbackResult)
      .annotate(
        OpenApi.Description,
        "Sets the sentiment (and category) of an assistant message, overwriting earlier feedback. When the AI Employee has a " +
          "`feedback_workflow_id` and the feedback changed, that workflow runs with trigger_type `feedback` and its run_id is returned."
      )
  )
  .add(
    HttpApiEndpoint.patch("feedbackText")`/messages/${messageId}/feedback`
      .setPayload(C.FeedbackTextRequest)
      .addSuccess(C.FeedbackResult)
      .annotate(OpenApi.Description, "Adds a comment to feedback that has a sentiment (409 FEEDBACK_SENTIMENT_REQUIRED otherwise)")
  )
  .add(HttpApiEndpoint.get("embedConfig")`/workflows/${HttpApiSchema.param("workflow_id", WorkflowId)}`.addSuccess(C.EmbedConfig))
  .add(
    HttpApiEndpoint.post("hitlRespond")`/hitl/${HttpApiSchema.param("request_id", Schema.UUID)}/respond`
      .setPayload(C.ChatHitlRespondRequest)
      .addSuccess(HitlRequest)
      .annotate(
        OpenApi.Description,
        "Answers a question a chat run asked: the request must belong to the session's AI Employee and tenant; then it is the " +
          "same as /workflow/hitl/{request_id}/respond"
      )
  )
  .add(
    HttpApiEndpoint.post("externalTrigger", "/external/trigger")
      .setPayload(C.ExternalTriggerRequest)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(C.MessageAccepted, { status: 202 })
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "API key only. `bearer_token` (a user's access token) names the user; their session for this channel (and " +
          "`conversation_id`) is found or created and their identity is passed to the run as `user_context`." +
          " Each message starts a run, so it is paced as POST /workflow/workflows/{id}/run is (the tenant's max_run_starts_per_second, " +
          "fair shares while the platform is overloaded): past that, 429 RATE_LIMITED with Retry-After and nothing is stored."
      )
  )
  .add(
    HttpApiEndpoint.post("externalChat", "/external/chat")
      .setPayload(C.ExternalChatRequest)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(C.MessageAccepted, { status: 202 })
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "API key only. The visitor is `external_user_id`, else `user_context.email` (422 IDENTITY_REQUIRED with neither); " +
          "it is not verified. `conversation_id` threads turns into one session; without it each call is a single-shot exchange. " +
          "The assistant message is written when the run ends: poll the run or follow /chat/runs/{run_id}/stream." +
          " Each message starts a run, so it is paced as POST /workflow/workflows/{id}/run is (the tenant's max_run_starts_per_second, " +
          "fair shares while the platform is overloaded): past that, 429 RATE_LIMITED with Retry-After and nothing is stored."
      )
  )
  .addError(Conflict)
  .addError(Unprocessable)
  .middleware(Security.Authentication)
  .prefix("/api/v1/chat")
{}
