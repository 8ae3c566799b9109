import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { folderFilter } from "../../platform/FolderPath.js"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { TenantId } from "../../schemas/Ids.js"
import { lexicalQuery } from "./EmbeddingsRepo.js"

export const KbRow = Schema.Struct({
  id: Schema.String,
  tenant_id: TenantId,
  name: Schema.String,
  description: Schema.String,
  document_count: Schema.Number,
  created_at: Timestamp,
  updated_at: Timestamp
})
export type KbRow = typeof KbRow.Type

const kbRows = decodeRows("knowledge_bases", KbRow)

export const DocRow = Schema.Struct({
  id: Schema.String,
  kb_id: Schema.String,
  title: Schema.String,
  mime_type: Schema.String,
  folder_path: Schema.String,
  folder_label: Schema.NullOr(Schema.String),
  version: Schema.Number,
  content_hash: Schema.String,
  size_bytes: Schema.Number,
  chunk_count: Schema.Number,
  deleted_at: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type DocRow = typeof DocRow.Type

const docRows = decodeRows("kb_documents", DocRow)
const docWithContentRows = decodeRows("kb_documents", Schema.Struct({ ...DocRow.fields, content: Schema.String }))

export const toKb = ({ tenant_id: _t, ...kb }: KbRow) => kb
/** `folder_path` shows what the client sent; matching uses the canonical column. */
export const toDoc = ({ kb_id, deleted_at: _d, folder_label, ...d }: DocRow) => ({
  ...d,
  folder_path: folder_label ?? d.folder_path,
  knowledge_base_id: kb_id
})

const CHUNKS_PER_INSERT = 1_000

/** SQL for knowledge bases, documents (versioned) and chunks; tenant-scoped throughout. */
export class KnowledgeRepo extends Effect.Service<KnowledgeRepo>()("KnowledgeRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const kbSelect = sql`SELECT k.*, (SELECT count(*)::int FROM kb_documents d WHERE d.kb_id = k.id AND d.deleted_at IS NULL)
      AS document_count FROM knowledge_bases k`
    const folderCondition = (filter: ReturnType<typeof folderFilter>) =>
      filter.exact === undefined
        ? sql`d.folder_path LIKE ${filter.like}`
        : sql`(d.folder_path = ${filter.exact} OR d.folder_path LIKE ${filter.like})`
    const docSelect = sql`SELECT d.*, (SELECT count(*)::int FROM kb_chunks c WHERE c.document_id = d.id) AS chunk_count
      FROM kb_documents d`

    /** Chunks carry their document's title, which the index weighs above the body. */
    const writeChunks = (tenantId: TenantId, kbId: string, documentId: string, chunks: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM kb_chunks WHERE document_id = ${documentId}`
        if (chunks.length === 0) return
        const [doc] = yield* sql`SELECT title FROM kb_documents WHERE id = ${documentId}`.pipe(
          decodeRows("kb_documents", Schema.Struct({ title: Schema.String }))
        )
        const rows = chunks.map((text, ordinal) => ({
          id: randomUUID(),
          tenant_id: tenantId,
          kb_id: kbId,
          document_id: documentId,
          ordinal,
          title: doc?.title ?? "",
          text
        }))
        // A statement takes at most 65,535 parameters (seven a chunk), and a 10 MiB document has ~15,000
        // chunks: in statements of 1,000, between which the event loop serves others.
        yield* Effect.forEach(Arr.chunksOf(rows, CHUNKS_PER_INSERT), (batch) => sql`INSERT INTO kb_chunks ${sql.insert(batch)}`, { discard: true })
      })

    return traced("KnowledgeRepo", {
      insertKb: (tenantId: TenantId, userId: string, kb: { name: string; description: string }) =>
        sql`INSERT INTO knowledge_bases ${sql.insert({ id: randomUUID(), tenant_id: tenantId, created_by: userId, ...kb })} RETURNING id`.pipe(
          Effect.flatMap((rows) => sql`${kbSelect} WHERE k.id = ${(rows[0] as { id: string }).id}`.pipe(kbRows)),
          Effect.map((rows) => rows[0]),
          Effect.orDie
        ),
      getKb: (tenantId: TenantId, id: string) =>
        sql`${kbSelect} WHERE k.tenant_id = ${tenantId} AND k.id = ${id}`.pipe(kbRows).pipe(
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        ),
      listKbs: (tenantId: TenantId, limit: number, offset: number) =>
        Effect.all([
          sql`${kbSelect} WHERE k.tenant_id = ${tenantId} ORDER BY k.created_at DESC, k.id LIMIT ${limit} OFFSET ${offset}`.pipe(kbRows),
          sql`SELECT count(*)::int AS total FROM knowledge_bases WHERE tenant_id = ${tenantId}`.pipe(
            decodeRows("knowledge_bases", Schema.Struct({ total: Schema.Number }))
          )
        ]).pipe(Effect.map(([rows, [c]]) => ({ rows, total: c?.total ?? 0 })), Effect.orDie),
      updateKb: (tenantId: TenantId, id: string, patch: { name?: string | undefined; description?: string | undefined }) =>
        sql`UPDATE knowledge_bases SET name = COALESCE(${patch.name ?? null}, name),
            description = COALESCE(${patch.description ?? null}, description), updated_at = now()
          WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      deleteKb: (tenantId: TenantId, id: string) =>
        sql`DELETE FROM knowledge_bases WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      /** A new document, or a new version of the live one with the same title and folder. */
      upsertDocument: (tenantId: TenantId, kbId: string, d: {
        title: string
        mime_type: string
        folder_path: string
        folder_label: string
        content: string
        content_hash: string
        size_bytes: number
        chunks: ReadonlyArray<string>
        /** Whether the version counts as indexed at commit (no embeddings to wait for). */
        ready: boolean
      }) =>
        sql.withTransaction(Effect.gen(function*() {
          const [existing] = yield* sql`SELECT id, version FROM kb_documents
            WHERE kb_id = ${kbId} AND title = ${d.title} AND folder_path = ${d.folder_path} AND deleted_at IS NULL FOR UPDATE`.pipe(
            decodeRows("kb_documents", Schema.Struct({ id: Schema.String, version: Schema.Number }))
          )
          const id = existing?.id ?? randomUUID()
          const version = (existing?.version ?? 0) + 1
          if (existing === undefined) {
            yield* sql`INSERT INTO kb_documents ${
              sql.insert({
                id,
                tenant_id: tenantId,
                kb_id: kbId,
                title: d.title,
                mime_type: d.mime_type,
                folder_path: d.folder_path,
                folder_label: d.folder_label,
                version,
                content_hash: d.content_hash,
                size_bytes: d.size_bytes
              })
            }`
          } else {
            yield* sql`UPDATE kb_documents SET version = ${version}, content_hash = ${d.content_hash}, mime_type = ${d.mime_type}, folder_label = ${d.folder_label},
              size_bytes = ${d.size_bytes}, updated_at = now() WHERE id = ${id}`
          }
          yield* sql`INSERT INTO kb_document_versions ${sql.insert({ document_id: id, version, content: d.content, content_hash: d.content_hash })}`
          yield* writeChunks(tenantId, kbId, id, d.chunks)
          yield* sql`INSERT INTO kb_document_events ${
            sql.insert({
              tenant_id: tenantId,
              kb_id: kbId,
              document_id: id,
              version,
              title: d.title,
              folder_path: d.folder_path,
              folder_label: d.folder_label,
              mime_type: d.mime_type,
              ready_at: d.ready ? new Date() : null
            })
          }`
          const [row] = yield* sql`${docSelect} WHERE d.id = ${id}`.pipe(docRows)
          return row
        })).pipe(Effect.orDie),
      getDocument: (tenantId: TenantId, kbId: string, id: string) =>
        sql`SELECT d.*, v.content,
            (SELECT count(*)::int FROM kb_chunks c WHERE c.document_id = d.id) AS chunk_count
          FROM kb_documents d JOIN kb_document_versions v ON v.document_id = d.id AND v.version = d.version
          WHERE d.tenant_id = ${tenantId} AND d.kb_id = ${kbId} AND d.id = ${id} AND d.deleted_at IS NULL`.pipe(
          docWithContentRows,
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        ),
      listDocuments: (tenantId: TenantId, kbId: string, limit: number, offset: number, folderPrefix: string | undefined) => {
        const where = sql.and([
          sql`d.tenant_id = ${tenantId}`,
          sql`d.kb_id = ${kbId}`,
          sql`d.deleted_at IS NULL`,
          ...(folderPrefix !== undefined ? [folderCondition(folderFilter(folderPrefix))] : [])
        ])
        return Effect.all([
          sql`${docSelect} WHERE ${where} ORDER BY d.folder_path, d.title, d.id LIMIT ${limit} OFFSET ${offset}`.pipe(docRows),
          sql`SELECT count(*)::int AS total FROM kb_documents d WHERE ${where}`.pipe(decodeRows("kb_documents", Schema.Struct({ total: Schema.Number })))
        ]).pipe(Effect.map(([rows, [c]]) => ({ rows, total: c?.total ?? 0 })), Effect.orDie)
      },
      deleteDocument: (tenantId: TenantId, kbId: string, id: string) =>
        sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql`UPDATE kb_documents SET deleted_at = now() WHERE tenant_id = ${tenantId} AND kb_id = ${kbId}
            AND id = ${id} AND deleted_at IS NULL RETURNING id`
          yield* sql`DELETE FROM kb_chunks WHERE document_id = ${id}`
          return rows.length > 0
        })).pipe(Effect.orDie),
      /** Ranked chunks: PostgreSQL full-text search over any of the query's words, scored 0..1. */
      search: (tenantId: TenantId, kbIds: ReadonlyArray<string>, query: string, topK: number) => {
        const tsquery = lexicalQuery(query)
        if (tsquery === undefined || kbIds.length === 0) return Effect.succeed([])
        return sql`
          SELECT c.id AS chunk_id, c.document_id, d.title, c.text,
                 ts_rank_cd(c.tsv, to_tsquery('english', ${tsquery}), 32) AS rank
          FROM kb_chunks c JOIN kb_documents d ON d.id = c.document_id
          WHERE c.tenant_id = ${tenantId} AND c.kb_id IN ${sql.in(kbIds)} AND d.deleted_at IS NULL
            AND c.tsv @@ to_tsquery('english', ${tsquery})
          ORDER BY rank DESC, c.id LIMIT ${topK}`.pipe(
          decodeRows(
            "kb_chunks",
            Schema.Struct({ chunk_id: Schema.String, document_id: Schema.String, title: Schema.String, text: Schema.String, rank: Schema.Number })
          )
        ).pipe(Effect.orDie)
      },
      /** The live documents of some knowledge bases: ids and content hashes (publish snapshots). */
      documentSet: (tenantId: TenantId, kbIds: ReadonlyArray<string>) =>
        kbIds.length === 0
          ? Effect.succeed([])
          : sql`SELECT kb_id, id, content_hash FROM kb_documents
              WHERE tenant_id = ${tenantId} AND kb_id IN ${sql.in(kbIds)} AND deleted_at IS NULL ORDER BY id`.pipe(
            decodeRows("kb_documents", Schema.Struct({ kb_id: Schema.String, id: Schema.String, content_hash: Schema.String }))
          ).pipe(Effect.orDie),
      /** Brings a document back to the version with this content hash (undeleting it if needed). */
      restoreDocument: (tenantId: TenantId, documentId: string, contentHash: string) =>
        sql.withTransaction(Effect.gen(function*() {
          const [doc] = yield* sql`SELECT kb_id, content_hash, deleted_at
            FROM kb_documents WHERE tenant_id = ${tenantId} AND id = ${documentId} FOR UPDATE`.pipe(
            decodeRows("kb_documents", Schema.Struct({ kb_id: Schema.String, content_hash: Schema.String, deleted_at: Schema.NullOr(Timestamp) }))
          )
          if (doc === undefined) return false
          if (doc.content_hash === contentHash && doc.deleted_at === null) return true
          const [v] = yield* sql`SELECT version, content FROM kb_document_versions
            WHERE document_id = ${documentId} AND content_hash = ${contentHash} ORDER BY version DESC LIMIT 1`.pipe(
            decodeRows("kb_document_versions", Schema.Struct({ version: Schema.Number, content: Schema.String }))
          )
          if (v === undefined) return false
          yield* sql`UPDATE kb_documents SET version = ${v.version}, content_hash = ${contentHash}, deleted_at = NULL,
            updated_at = now() WHERE id = ${documentId}`
          return { kbId: doc.kb_id, content: v.content }
        })).pipe(Effect.orDie),
      writeChunks: (tenantId: TenantId, kbId: string, documentId: string, chunks: ReadonlyArray<string>) =>
        writeChunks(tenantId, kbId, documentId, chunks).pipe(Effect.orDie),
      softDelete: (tenantId: TenantId, documentId: string) =>
        sql`UPDATE kb_documents SET deleted_at = now() WHERE tenant_id = ${tenantId} AND id = ${documentId}`.pipe(
          Effect.zipRight(sql`DELETE FROM kb_chunks WHERE document_id = ${documentId}`),
          Effect.asVoid,
          Effect.orDie
        )
    })
  })
}) {}
