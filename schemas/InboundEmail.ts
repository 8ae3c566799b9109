import { Schema } from "effect"
import { WorkflowId } from "./Ids.js"

/** PUT /workflows/{id}/email. */
export const EmailSettingsRequest = Schema.Struct({ enabled: Schema.Boolean })

export const EmailSettings = Schema.Struct({
  workflow_id: WorkflowId,
  enabled: Schema.Boolean,
  /** `<workflow_id>@INBOUND_EMAIL_DOMAIN`: mail to it starts a run while enabled. */
  address: Schema.String
})

export const EmailAttachment = Schema.Struct({
  name: Schema.String,
  content_type: Schema.String,
  size: Schema.Int,
  inline: Schema.Boolean,
  checksum: Schema.String
})

/** A stored inbound message (`message_ref.id` of its run's input). */
export const InboundEmailMessage = Schema.Struct({
  id: Schema.UUID,
  workflow_id: WorkflowId,
  message_id: Schema.String,
  run_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  subject: Schema.String,
  sender: Schema.String,
  recipients: Schema.Struct({ to: Schema.Array(Schema.String), cc: Schema.Array(Schema.String) }),
  conversation_id: Schema.String,
  received_at: Schema.Date,
  headers: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  body: Schema.Struct({ text: Schema.NullOr(Schema.String), html: Schema.NullOr(Schema.String) }),
  attachments: Schema.Array(EmailAttachment),
  size_bytes: Schema.Int
})
