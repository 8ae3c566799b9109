import { Context, type Effect } from "effect"

/** A stored document version, as the outbox of arrivals records it. */
export interface DocumentArrival {
  readonly id: string
  readonly tenantId: string
  readonly knowledgeBaseId: string
  readonly documentId: string
  readonly version: number
  readonly title: string
  /** Canonical (`/finance/2024`), for matching. */
  readonly folderPath: string
  /** As the uploader wrote it, for display. */
  readonly folderLabel: string
  readonly mimeType: string
}

/** What the document triggers read of knowledge bases; the ingestion service implements it. */
export class KnowledgeDocuments extends Context.Tag("ports/KnowledgeDocuments")<KnowledgeDocuments, {
  readonly knowledgeBaseExists: (tenantId: string, kbId: string) => Effect.Effect<boolean>
  /**
   * Locks up to `limit` indexed arrivals not yet dispatched, oldest first (`FOR UPDATE SKIP
   * LOCKED`: call it in the transaction that dispatches them and calls `markDispatched`).
   */
  readonly claimArrivals: (limit: number) => Effect.Effect<ReadonlyArray<DocumentArrival>>
  readonly markDispatched: (ids: ReadonlyArray<string>) => Effect.Effect<void>
  /** Completes when a document arrives through this process (the dispatcher's wake-up). */
  readonly nextArrival: Effect.Effect<void>
}>() {}
