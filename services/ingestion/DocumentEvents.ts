import { SqlClient } from "@effect/sql"
import { Effect, Layer, Queue, Schema } from "effect"
import { BigIntText, decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { KnowledgeDocuments } from "../ports/KnowledgeDocuments.js"

/** An arrival still waiting for its embeddings counts as indexed after this long (a crash, a failing embedding model). */
const READY_AFTER = "60 seconds"

const ArrivalRow = Schema.Struct({
  id: BigIntText,
  tenant_id: Schema.String,
  kb_id: Schema.String,
  document_id: Schema.String,
  version: Schema.Number,
  title: Schema.String,
  folder_path: Schema.String,
  folder_label: Schema.String,
  mime_type: Schema.String
})
const arrivalRows = decodeRows("kb_document_events", ArrivalRow)

/**
 * The outbox of document arrivals (rows written with each document version, in its
 * transaction): marks a version indexed once it is embedded and wakes the dispatcher.
 */
export class DocumentEvents extends Effect.Service<DocumentEvents>()("DocumentEvents", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const arrivals = yield* Queue.sliding<void>(1)
    return traced("DocumentEvents", {
      markIndexed: (documentId: string, version: number) =>
        sql`UPDATE kb_document_events SET ready_at = now() WHERE document_id = ${documentId} AND version = ${version}
          AND ready_at IS NULL`.pipe(Effect.asVoid, Effect.orDie),
      arrived: Queue.offer(arrivals, undefined).pipe(Effect.asVoid),
      nextArrival: Queue.take(arrivals),
      claim: (limit: number) =>
        sql`SELECT * FROM kb_document_events WHERE dispatched_at IS NULL
          AND (ready_at IS NOT NULL OR created_at < now() - ${READY_AFTER}::interval)
          ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`.pipe(arrivalRows, Effect.orDie),
      markDispatched: (ids: ReadonlyArray<string>) =>
        ids.length === 0
          ? Effect.void
          : sql`UPDATE kb_document_events SET dispatched_at = now() WHERE id IN ${sql.in([...ids])}`.pipe(Effect.asVoid, Effect.orDie),
      knowledgeBaseExists: (tenantId: string, kbId: string) =>
        sql`SELECT 1 FROM knowledge_bases WHERE tenant_id = ${tenantId} AND id = ${kbId}`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    })
  })
}) {}

export const KnowledgeDocumentsLive = Layer.effect(
  KnowledgeDocuments,
  Effect.map(DocumentEvents, (events) => ({
    knowledgeBaseExists: events.knowledgeBaseExists,
    claimArrivals: (limit) =>
      Effect.map(events.claim(limit), (rows) =>
        rows.map((r) => ({
          id: r.id,
          tenantId: r.tenant_id,
          knowledgeBaseId: r.kb_id,
          documentId: r.document_id,
          version: r.version,
          title: r.title,
          folderPath: r.folder_path,
          folderLabel: r.folder_label,
          mimeType: r.mime_type
        }))),
    markDispatched: events.markDispatched,
    nextArrival: events.nextArrival
  }))
)
