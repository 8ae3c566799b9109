import { Schema } from "effect"
import { DocumentTriggerId, WorkflowId } from "./Ids.js"

export const FireOn = Schema.Literal("created", "updated", "any").annotations({
  description: "created (default): a new document; updated: a new version of an existing document; any: both"
})

const fields = {
  knowledge_base_id: Schema.UUID,
  folder_prefix: Schema.optionalWith(Schema.String, { default: () => "" }).annotations({
    description: "documents whose folder path starts with it (`finance/` is that folder and below; empty: all)"
  }),
  mime_type_allowlist: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }).annotations({
    description: "empty: every type"
  }),
  fire_on: Schema.optionalWith(FireOn, { default: () => "created" as const }),
  enabled: Schema.optionalWith(Schema.Boolean, { default: () => true })
}

/** POST and PUT bodies: PUT replaces the binding. */
export const DocumentTriggerRequest = Schema.Struct(fields)

export const DocumentTrigger = Schema.Struct({
  id: DocumentTriggerId,
  workflow_id: WorkflowId,
  knowledge_base_id: Schema.String,
  folder_prefix: Schema.String,
  mime_type_allowlist: Schema.Array(Schema.String),
  fire_on: FireOn,
  enabled: Schema.Boolean,
  /** Why the last matching document started no run (no published version, input schema). */
  last_error: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type DocumentTrigger = typeof DocumentTrigger.Type

export const DocumentTriggerList = Schema.Struct({ items: Schema.Array(DocumentTrigger) })
