import { Schema } from "effect"
import { pageSizeParam } from "./Pagination.js"
import { BooleanFromString, IntFromString } from "./QueryParams.js"

const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const VersionSource = Schema.Literal("ai_create", "ai_edit", "manual_save", "restore")

export const DocumentCreate = Schema.Struct({
  title: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(500)),
  content_html: Schema.optionalWith(Schema.String, { default: () => "" }),
  workflow_id: Schema.optional(Schema.UUID),
  session_id: Schema.optional(Schema.UUID),
  metadata: Schema.optionalWith(Metadata, { default: () => ({}) }),
  /** A kind of document (free text: report, policy...), filterable in the list. */
  type: Schema.optional(Schema.String),
  parent_document_id: Schema.optional(Schema.UUID)
})

/** PATCH: title, a shallow metadata merge, and/or content by the update_document rules. */
export const DocumentPatch = Schema.Struct({
  title: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(500))),
  metadata: Schema.optional(Metadata),
  content_html: Schema.optional(Schema.String),
  target_section_id: Schema.optional(Schema.String),
  change_description: Schema.optional(Schema.String)
})

export const Document = Schema.Struct({
  id: Schema.UUID,
  title: Schema.String,
  content_html: Schema.optional(Schema.String),
  metadata: Metadata,
  type: Schema.NullOr(Schema.String),
  version: Schema.Number,
  workflow_id: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.String),
  parent_document_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type Document = typeof Document.Type

export const DocumentListParams = Schema.Struct({
  limit: pageSizeParam(25),
  offset: Schema.optionalWith(IntFromString(0), { default: () => 0 }),
  type: Schema.optional(Schema.String),
  parent_document_id: Schema.optional(Schema.UUID),
  include_content: Schema.optional(BooleanFromString)
})

export const DocumentList = Schema.Struct({ items: Schema.Array(Document), total: Schema.Number, limit: Schema.Number, offset: Schema.Number })

const Child = Schema.Struct({
  title: DocumentCreate.fields.title,
  content_html: Schema.optional(Schema.String),
  metadata: Schema.optional(Metadata),
  type: Schema.optional(Schema.String)
})

export const BulkCreate = Schema.Struct({
  /** A new parent document (with `title`), or an existing one (`parent_document_id`). */
  title: Schema.optional(DocumentCreate.fields.title),
  parent_document_id: Schema.optional(Schema.UUID),
  workflow_id: Schema.optional(Schema.UUID),
  children: Schema.Array(Child).pipe(Schema.minItems(1), Schema.maxItems(100))
})

export const BulkCreated = Schema.Struct({ parent: Document, children: Schema.Array(Document) })

export const Version = Schema.Struct({
  number: Schema.Number,
  source: VersionSource,
  change_description: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  run_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  content_html: Schema.optional(Schema.String)
})
export type Version = typeof Version.Type

export const VersionList = Schema.Struct({ items: Schema.Array(Version) })

export const ManualSave = Schema.Struct({
  content_html: Schema.String,
  /** The version the client loaded: a document that moved on since is 409 DOCUMENT_CHANGED. */
  base_version: Schema.Int,
  change_description: Schema.optional(Schema.String)
})

export const GenerateRequest = Schema.Struct({
  section_title: Schema.optional(Schema.String),
  instructions: Schema.optional(Schema.String),
  knowledge_base_ids: Schema.optional(Schema.Array(Schema.UUID)),
  workflow_id: Schema.optional(Schema.UUID)
})

export const GenerateResponse = Schema.Struct({ run_id: Schema.String, workflow_id: Schema.String, stream_url: Schema.String })

export const Anchor = Schema.Struct({
  section_id: Schema.optional(Schema.String),
  /** The commented text, as the client saw it. */
  quote: Schema.optional(Schema.String),
  start: Schema.optional(Schema.Int),
  end: Schema.optional(Schema.Int)
})

export const Comment = Schema.Struct({
  id: Schema.UUID,
  author_id: Schema.String,
  content: Schema.String,
  deleted: Schema.Boolean,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

export const Thread = Schema.Struct({
  id: Schema.UUID,
  document_id: Schema.UUID,
  anchor: Anchor,
  status: Schema.Literal("open", "resolved"),
  created_by: Schema.String,
  resolved_by: Schema.NullOr(Schema.String),
  resolved_at: Schema.NullOr(Schema.Date),
  comments: Schema.Array(Comment),
  created_at: Schema.Date
})
export type Thread = typeof Thread.Type

export const ThreadCreate = Schema.Struct({
  content: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10_000)),
  anchor: Schema.optionalWith(Anchor, { default: () => ({}) })
})
export const ThreadPatch = Schema.Struct({ status: Schema.Literal("open", "resolved") })
export const ReplyCreate = Schema.Struct({ content: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10_000)) })
export const ThreadList = Schema.Struct({ items: Schema.Array(Thread) })
export const ThreadBatchParams = Schema.Struct({
  /** Comma-separated document ids (default: all of the caller's documents). */
  document_ids: Schema.optional(Schema.String),
  status: Schema.optional(Schema.Literal("open", "resolved"))
})

export const ExportRequest = Schema.Struct({
  document_ids: Schema.Array(Schema.UUID).pipe(Schema.minItems(1), Schema.maxItems(100)),
  format: Schema.Literal("html", "pdf", "pptx")
})

export const ExportJob = Schema.Struct({
  id: Schema.UUID,
  status: Schema.Literal("pending", "running", "complete", "error"),
  format: Schema.String,
  document_ids: Schema.Array(Schema.String),
  download_url: Schema.NullOr(Schema.String),
  expires_at: Schema.NullOr(Schema.Date),
  error: Schema.NullOr(Schema.String),
  created_at: Schema.Date
})

export const ChatSessionCreate = Schema.Struct({
  title: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  /** Document-less sessions: the AI Employee whose knowledge bases answers are searched in. */
  workflow_id: Schema.optional(Schema.UUID)
})

export const ChatSessionPatch = Schema.Struct({ title: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)) })

export const ChatSession = Schema.Struct({
  id: Schema.UUID,
  document_id: Schema.NullOr(Schema.String),
  workflow_id: Schema.NullOr(Schema.String),
  title: Schema.String,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

export const ChatSessionList = Schema.Struct({ items: Schema.Array(ChatSession) })

export const ChatMessageCreate = Schema.Struct({
  content: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(20_000)),
  mode: Schema.optionalWith(Schema.Literal("edit", "qa"), { default: () => "qa" as const }),
  /** edit: the HTML the user selected, which replacement_text would replace. */
  selected_html: Schema.optional(Schema.String)
})

export const ChatMessage = Schema.Struct({
  id: Schema.UUID,
  role: Schema.Literal("user", "assistant"),
  content: Schema.String,
  mode: Schema.Literal("edit", "qa"),
  selected_html: Schema.NullOr(Schema.String),
  replacement_text: Schema.NullOr(Schema.String),
  sources: Schema.Array(Schema.Struct({ document_id: Schema.String, title: Schema.String, snippet: Schema.String })),
  created_at: Schema.Date
})

export const ChatMessageList = Schema.Struct({ items: Schema.Array(ChatMessage) })

/** The reply of a message: the user's message and the assistant's answer. */
export const ChatExchange = Schema.Struct({ message: ChatMessage, reply: ChatMessage })

export const OutlineRequest = Schema.Struct({
  input_type: Schema.Literal("MANUAL", "UPLOAD", "AI"),
  /** MANUAL: an HTML outline (headings, nested lists); UPLOAD: markdown of an uploaded document. */
  content: Schema.optionalWith(Schema.String, { default: () => "" })
})

export interface OutlineSection {
  readonly id: string
  readonly title: string
  readonly level: number
  readonly children: ReadonlyArray<OutlineSection>
}
export const OutlineSection: Schema.Schema<OutlineSection> = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  level: Schema.Number,
  children: Schema.Array(Schema.suspend((): Schema.Schema<OutlineSection> => OutlineSection))
}).annotations({ identifier: "OutlineSection" })

export const Outline = Schema.Struct({ sections: Schema.Array(OutlineSection) })

export const SectionProfileRequest = Schema.Struct({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  description: Schema.optionalWith(Schema.String, { default: () => "" }),
  instructions: Schema.optionalWith(Schema.String, { default: () => "" }),
  keywords: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})

export const SectionProfilePatch = Schema.Struct({
  name: Schema.optional(SectionProfileRequest.fields.name),
  description: Schema.optional(Schema.String),
  instructions: Schema.optional(Schema.String),
  keywords: Schema.optional(Schema.Array(Schema.String))
})

export const SectionProfile = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  description: Schema.String,
  instructions: Schema.String,
  keywords: Schema.Array(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

export const SectionProfileList = Schema.Struct({ items: Schema.Array(SectionProfile) })

export const ClassifyRequest = Schema.Struct({ section_titles: Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(200)) })

export const Classification = Schema.Struct({
  items: Schema.Array(Schema.Struct({ section_title: Schema.String, profile_id: Schema.NullOr(Schema.String), profile_name: Schema.NullOr(Schema.String) }))
})

export const TemplateMode = Schema.Literal("slot_fill", "html_rewrite").annotations({
  description: "slot_fill: generation fills the template's {{slots}}; html_rewrite: generation rewrites the template's HTML"
})

export const TemplateCreate = Schema.Struct({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  mode: Schema.optionalWith(TemplateMode, { default: () => "html_rewrite" as const }),
  /** An HTML template (uploads bring DOCX or PPTX instead). */
  html: Schema.String
})

export const TemplatePatch = Schema.Struct({
  name: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))),
  mode: Schema.optional(TemplateMode)
})

export const Template = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  kind: Schema.Literal("docx", "pptx", "html"),
  mode: TemplateMode,
  size_bytes: Schema.Number,
  /** The `{{name}}` placeholders found in the template. */
  slots: Schema.Array(Schema.String),
  slide_count: Schema.NullOr(Schema.Number),
  is_default: Schema.Boolean,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

export const TemplateList = Schema.Struct({ items: Schema.Array(Template) })

export const Slide = Schema.Struct({
  index: Schema.Number,
  title: Schema.String,
  /** The slide's text runs, in order. */
  texts: Schema.Array(Schema.String)
})

export const SlideList = Schema.Struct({ items: Schema.Array(Slide) })
export const SlideOrder = Schema.Struct({ order: Schema.Array(Schema.Int) })
export const SlideEdit = Schema.Struct({ texts: Schema.Array(Schema.String) })
