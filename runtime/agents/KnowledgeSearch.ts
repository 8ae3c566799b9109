import { Context, type Effect } from "effect"

export interface SearchHit {
  readonly document_id: string
  readonly chunk_id: string
  readonly title: string
  readonly snippet: string
  readonly score: number
}

/** Retrieval over a tenant's knowledge bases, as search_respond needs it (the ingestion service implements it). */
export class KnowledgeSearch extends Context.Tag("KnowledgeSearch")<KnowledgeSearch, {
  readonly search: (
    tenantId: string,
    knowledgeBaseIds: ReadonlyArray<string>,
    query: string,
    options: { readonly topK: number; readonly minScore: number }
  ) => Effect.Effect<ReadonlyArray<SearchHit>>
}>() {}
