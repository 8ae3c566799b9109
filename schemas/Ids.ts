import { Schema } from "effect"

export const TenantId = Schema.UUID.pipe(Schema.brand("TenantId"))
export type TenantId = typeof TenantId.Type

export const UserId = Schema.UUID.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

export const ApiKeyId = Schema.UUID.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

export const GroupId = Schema.UUID.pipe(Schema.brand("GroupId"))
export type GroupId = typeof GroupId.Type

export const AuditEventId = Schema.UUID.pipe(Schema.brand("AuditEventId"))
export type AuditEventId = typeof AuditEventId.Type

export const WorkflowId = Schema.UUID.pipe(Schema.brand("WorkflowId"))
export type WorkflowId = typeof WorkflowId.Type

export const VoiceTreeId = Schema.UUID.pipe(Schema.brand("VoiceTreeId"))
export type VoiceTreeId = typeof VoiceTreeId.Type

export const VoiceTreeVersionId = Schema.UUID.pipe(Schema.brand("VoiceTreeVersionId"))
export type VoiceTreeVersionId = typeof VoiceTreeVersionId.Type

export const ChatSessionId = Schema.UUID.pipe(Schema.brand("ChatSessionId"))
export type ChatSessionId = typeof ChatSessionId.Type

export const ChatMessageId = Schema.UUID.pipe(Schema.brand("ChatMessageId"))
export type ChatMessageId = typeof ChatMessageId.Type
export const WebhookId = Schema.UUID.pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type

export const DocumentTriggerId = Schema.UUID.pipe(Schema.brand("DocumentTriggerId"))
export type DocumentTriggerId = typeof DocumentTriggerId.Type

export const NudgeId = Schema.UUID.pipe(Schema.brand("NudgeId"))
export type NudgeId = typeof NudgeId.Type
