import { Schema } from "effect"
import { ChatMessageId, ChatSessionId, TenantId, UserId, WorkflowId } from "./Ids.js"
import { Page, PageParams } from "./Pagination.js"
import { ChatButton } from "./Workflow.js"

const Json = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const ChatSession = Schema.Struct({
  id: ChatSessionId,
  tenant_id: TenantId,
  workflow_id: WorkflowId,
  user_id: UserId,
  /** Empty until the first exchange, then a model-written summary (or what its owner renamed it to). */
  title: Schema.String,
  input_params: Json,
  /** `web` for signed-in users; the `channel_type` of external/trigger; `external` for external/chat. */
  channel: Schema.String,
  conversation_id: Schema.optional(Schema.String),
  /** `transferred` after a live_agent_transfer step handed the conversation to people. */
  status: Schema.Literal("active", "transferred"),
  last_activity_at: Schema.Date,
  created_at: Schema.Date
})
export type ChatSession = typeof ChatSession.Type

export const ChatSessionPage = Page(ChatSession)

export const ChatSource = Schema.Struct({
  document_id: Schema.String,
  chunk_id: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
  snippet: Schema.optional(Schema.String),
  score: Schema.optional(Schema.Number)
})

export const Sentiment = Schema.Literal("positive", "negative")

export const MessageFeedback = Schema.Struct({
  sentiment: Sentiment,
  category: Schema.optional(Schema.String),
  feedback_text: Schema.optional(Schema.String),
  run_id: Schema.optional(Schema.UUID),
  updated_at: Schema.Date
})

/**
 * One turn. A user message's `status` is its turn: `queued` (waiting for the session's busy run),
 * `running`, `answered`, `failed` or `cancelled`. An assistant message is `completed`, or `failed`
 * / `cancelled` with a text that says so.
 */
export const ChatMessage = Schema.Struct({
  id: ChatMessageId,
  session_id: ChatSessionId,
  role: Schema.Literal("user", "assistant"),
  content: Schema.String,
  status: Schema.Literal("queued", "running", "answered", "completed", "failed", "cancelled"),
  run_id: Schema.optional(Schema.UUID),
  /** On a user message: the id its answer gets. On an assistant message: the user message it answers. */
  assistant_message_id: Schema.optional(ChatMessageId),
  reply_to: Schema.optional(ChatMessageId),
  is_dry_run: Schema.Boolean,
  sources: Schema.Array(ChatSource),
  response_buttons: Schema.Array(ChatButton),
  error: Schema.optional(Schema.String),
  feedback: Schema.optional(MessageFeedback),
  created_at: Schema.Date,
  completed_at: Schema.optional(Schema.Date)
})
export type ChatMessage = typeof ChatMessage.Type

export const ChatMessageList = Schema.Struct({ items: Schema.Array(ChatMessage) })

export const CreateSessionRequest = Schema.Struct({
  workflow_id: WorkflowId,
  input_params: Schema.optional(Json)
})

export const SessionListParams = Schema.Struct({
  ...PageParams.fields,
  workflow_id: Schema.optional(WorkflowId)
})

export const CurrentSessionParams = Schema.Struct({ workflow_id: WorkflowId })

export const RenameSessionRequest = Schema.Struct({
  title: Schema.String.pipe(Schema.maxLength(200))
})

export const ImpersonationRequest = Schema.Struct({
  user_id: Schema.optional(UserId),
  user_email: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String)
})

const MessageText = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(32_000))

export const SendMessageRequest = Schema.Struct({
  content: MessageText,
  is_dry_run: Schema.optional(Schema.Boolean),
  user_context: Schema.optional(Json),
  impersonation_request: Schema.optional(ImpersonationRequest)
})

export const MessageAccepted = Schema.Struct({
  message_id: ChatMessageId,
  assistant_message_id: ChatMessageId,
  run_id: Schema.UUID,
  session_id: ChatSessionId,
  /** `running`, or `queued` behind the session's busy run (it starts when that one ends). */
  status: Schema.Literal("running", "queued")
})
export type MessageAccepted = typeof MessageAccepted.Type

export const FeedbackRequest = Schema.Struct({
  sentiment: Sentiment,
  category: Schema.optional(Schema.String.pipe(Schema.maxLength(200)))
})

export const FeedbackTextRequest = Schema.Struct({
  feedback_text: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4000))
})

export const FeedbackResult = Schema.Struct({
  message_id: ChatMessageId,
  feedback: MessageFeedback,
  /** The feedback workflow's run, when the AI Employee has one and this submission started it. */
  run_id: Schema.optional(Schema.UUID),
  /** Why the feedback workflow could not start (the feedback itself is saved). */
  feedback_workflow_error: Schema.optional(Schema.String)
})

export const EmbedConfig = Schema.Struct({
  workflow_id: WorkflowId,
  name: Schema.String,
  description: Schema.optional(Schema.String),
  icon: Schema.optional(Schema.String),
  interaction_type: Schema.String,
  published: Schema.Boolean,
  welcome_message: Schema.NullOr(Schema.String),
  welcome_buttons: Schema.Array(ChatButton),
  feedback_pills: Schema.Struct({ enabled: Schema.Boolean, categories: Schema.Array(Schema.String) })
})

export const ChatHitlRespondRequest = Schema.Struct({
  session_id: ChatSessionId,
  response: Schema.Unknown
})

export const ExternalTriggerRequest = Schema.Struct({
  bearer_token: Schema.String.pipe(Schema.minLength(1)),
  workflow_id: WorkflowId,
  channel_type: Schema.String.pipe(Schema.pattern(/^[a-z][a-z0-9_-]{0,39}$/)),
  message: MessageText,
  conversation_id: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))),
  user_context_override: Schema.optional(Json)
})

export const ExternalChatRequest = Schema.Struct({
  external_user_id: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))),
  user_context: Schema.optional(Json),
  workflow_id: WorkflowId,
  message: MessageText,
  conversation_id: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)))
})
