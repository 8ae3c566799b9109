import { Schema } from "effect"
import { DagDefinition, DagWarning } from "./Dag.js"
import { UserId, WorkflowId } from "./Ids.js"
import { Page } from "./Pagination.js"
import { IntFromString } from "./QueryParams.js"
import { WorkflowConfig } from "./Workflow.js"

export const KnowledgeBaseSnapshot = Schema.Struct({
  knowledge_base_id: Schema.String,
  documents: Schema.Array(Schema.Struct({ document_id: Schema.String, content_hash: Schema.String }))
})

export const OutputSnapshot = Schema.Struct({ name: Schema.String, value: Schema.String, exposed: Schema.Boolean })

export const VersionSummary = Schema.Struct({
  workflow_id: WorkflowId,
  number: Schema.Int,
  name: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  published_at: Schema.optional(Schema.Date),
  active: Schema.Boolean,
  /** The version this draft was staged from by a revert. */
  reverted_from: Schema.optional(Schema.Int),
  saved_by: Schema.NullOr(UserId),
  published_by: Schema.optional(UserId),
  created_at: Schema.Date
})

/** A version in the history: who saved and published it by name too, where that person is still a member. */
export const VersionListItem = Schema.Struct({
  ...VersionSummary.fields,
  saved_by_name: Schema.optional(Schema.String),
  published_by_name: Schema.optional(Schema.String)
})

/** A version's full, self-contained snapshot. */
export const Version = Schema.Struct({
  ...VersionSummary.fields,
  dag_definition: DagDefinition,
  config_snapshot: Schema.optional(WorkflowConfig),
  exposed_outputs: Schema.optional(Schema.Array(OutputSnapshot)),
  knowledge_base_snapshot: Schema.optional(Schema.Array(KnowledgeBaseSnapshot))
})
export type Version = typeof Version.Type

export const VersionList = Page(VersionListItem)

export const PublishResult = Schema.Struct({
  ...Version.fields,
  warnings: Schema.Array(DagWarning),
  /** Present when the published draft came from a revert: how the knowledge-base rollback went. */
  data_revert_dispatch: Schema.optional(Schema.Literal("ok", "failed"))
})

export const UpdateVersionRequest = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)))),
  description: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(5000))))
})

export const DocumentDiffParams = Schema.Struct({
  compare_to: IntFromString(1)
})

export const DocumentDiff = Schema.Struct({
  from_version: Schema.Int,
  to_version: Schema.Int,
  added: Schema.Array(Schema.Struct({ knowledge_base_id: Schema.String, document_id: Schema.String })),
  removed: Schema.Array(Schema.Struct({ knowledge_base_id: Schema.String, document_id: Schema.String })),
  changed: Schema.Array(Schema.Struct({ knowledge_base_id: Schema.String, document_id: Schema.String }))
})
