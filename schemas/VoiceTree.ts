import { Schema } from "effect"
import { TenantId, VoiceTreeId, VoiceTreeVersionId } from "./Ids.js"

export const VoiceTree = Schema.Struct({
  id: VoiceTreeId,
  tenant_id: TenantId,
  name: Schema.String,
  active_version_id: Schema.NullOr(VoiceTreeVersionId),
  /** The newest version whose superseded_at is unset. */
  head_version_id: Schema.NullOr(VoiceTreeVersionId),
  created_at: Schema.Date
})

export const VoiceTreeVersion = Schema.Struct({
  id: VoiceTreeVersionId,
  tree_id: VoiceTreeId,
  number: Schema.Int,
  content: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  active: Schema.Boolean,
  published_at: Schema.NullOr(Schema.Date),
  superseded_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date
})

export const CreateVoiceTreeRequest = Schema.Struct({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  content: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export const CreateVoiceTreeVersionRequest = Schema.Struct({
  content: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export const PublishVoiceTreeRequest = Schema.Struct({ version_id: VoiceTreeVersionId })
