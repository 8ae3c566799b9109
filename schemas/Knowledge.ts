import { Schema } from "effect"
import { Page, pageSizeParam } from "./Pagination.js"
import { IntFromString } from "./QueryParams.js"

export const KnowledgeBase = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  description: Schema.String,
  document_count: Schema.Int,
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export const KnowledgeBaseRequest = Schema.Struct({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  description: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(5000)), { default: () => "" })
})
export const KnowledgeBasePatch = Schema.Struct({
  name: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))),
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(5000)))
})

export const KbDocument = Schema.Struct({
  id: Schema.UUID,
  knowledge_base_id: Schema.UUID,
  title: Schema.String,
  mime_type: Schema.String,
  folder_path: Schema.String,
  version: Schema.Int,
  content_hash: Schema.String,
  size_bytes: Schema.Int,
  chunk_count: Schema.Int,
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export const KbDocumentWithContent = Schema.Struct({ ...KbDocument.fields, content: Schema.String })

/** The JSON form of an upload; the multipart form sends `file` (and `folder_path`) instead. */
export const DocumentRequest = Schema.Struct({
  title: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)),
  content: Schema.String,
  mime_type: Schema.optionalWith(Schema.String, { default: () => "text/plain" }),
  folder_path: Schema.optionalWith(Schema.String, { default: () => "/" })
})

export const DocumentListParams = Schema.Struct({
  page: Schema.optionalWith(IntFromString(1), { default: () => 1 }),
  page_size: pageSizeParam(20),
  folder_prefix: Schema.optional(Schema.String)
})

export const SearchRequest = Schema.Struct({
  query: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000)),
  top_k: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 50)), { default: () => 5 }),
  min_score: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 1)), { default: () => 0 })
})
export const SearchResult = Schema.Struct({
  items: Schema.Array(Schema.Struct({
    document_id: Schema.String,
    chunk_id: Schema.String,
    title: Schema.String,
    snippet: Schema.String,
    score: Schema.Number
  }))
})

export const KnowledgeBasePage = Page(KnowledgeBase)
export const KbDocumentPage = Page(KbDocument)
