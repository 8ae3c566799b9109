import { Schema } from "effect"
import { WebhookId, WorkflowId } from "./Ids.js"

export const Webhook = Schema.Struct({
  id: WebhookId,
  workflow_id: WorkflowId,
  /** Where deliveries go: POST, JSON, signed with the secret in X-Signature-256. */
  url: Schema.String,
  created_at: Schema.Date
})
export type Webhook = typeof Webhook.Type

/** The answer to a create: the only time the secret is shown. */
export const WebhookCreated = Schema.Struct({ ...Webhook.fields, secret: Schema.String })

export const WebhookList = Schema.Struct({ items: Schema.Array(Webhook) })

export const WebhookAccepted = Schema.Struct({ run_id: Schema.String, status: Schema.String })
