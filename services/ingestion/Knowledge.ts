import { Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import { canonicalFolder } from "../../platform/FolderPath.js"
import { traced } from "../../platform/Traced.js"
import { taskError } from "../../platform/workers/TaskErrors.js"
import { WorkerPool, workerTask } from "../../platform/workers/WorkerPool.js"
import { KnowledgeSearch } from "../../runtime/agents/KnowledgeSearch.js"
import { requireBuilder, requireReader } from "../../schemas/Authorization.js"
import { badRequest, notFound } from "../../schemas/Errors.js"
import type { TenantId } from "../../schemas/Ids.js"
import type { PageParams } from "../../schemas/Pagination.js"
import { pageOf, pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { KnowledgeSnapshots } from "../ports/PublishChecks.js"
import { chunkText } from "./Chunks.js"
import { DocumentEvents } from "./DocumentEvents.js"
import { documentType, SUPPORTED_TYPES } from "./Extract.js"
import type * as ExtractTask from "./ExtractTask.js"
import { KnowledgeRepo, toDoc, toKb } from "./KnowledgeRepo.js"
import { SemanticIndex } from "./SemanticIndex.js"

/**
 * Plain text or Markdown of at most 64 KiB is read here: decoding, hashing and chunking it is
 * linear and takes a few milliseconds, less than a trip to the worker pool (whose per-tenant queue
 * would otherwise turn a burst of small uploads into 429s). Anything larger or parsed goes there.
 */
const SMALL_TEXT_BYTES = 64 * 1024
const isSmallText = (mimeType: string, bytes: Uint8Array) => (mimeType === "text/plain" || mimeType === "text/markdown") && bytes.byteLength <= SMALL_TEXT_BYTES
const smallText = (bytes: Uint8Array) => {
  const text = new TextDecoder().decode(bytes).replaceAll("\0", "")
  return { text, hash: createHash("sha256").update(text).digest("hex"), chunks: chunkText(text) }
}

const readTask = workerTask<typeof ExtractTask, "readDocument">(new URL("./ExtractTask.js", import.meta.url), "readDocument")
const chunkTask = workerTask<typeof ExtractTask, "chunk">(new URL("./ExtractTask.js", import.meta.url), "chunk")

/** Knowledge bases: documents in, extracted, chunked and indexed; ranked search out. */
export class Knowledge extends Effect.Service<Knowledge>()("Knowledge", {
  dependencies: [DocumentEvents.Default, KnowledgeRepo.Default, SemanticIndex.Default],
  effect: Effect.gen(function*() {
    const repo = yield* KnowledgeRepo
    const semantic = yield* SemanticIndex
    const events = yield* DocumentEvents
    const workers = yield* WorkerPool

    const kb = (principal: Principal, id: string) =>
      repo.getKb(principal.tenantId, id).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("Knowledge base")), onSome: Effect.succeed })),
        Effect.tap(() => requireReader(principal))
      )

    const create = (principal: Principal, input: { name: string; description: string }) =>
      requireBuilder(principal).pipe(Effect.zipRight(repo.insertKb(principal.tenantId, principal.userId, input)), Effect.map(toKb))

    const list = (principal: Principal, params: PageParams) =>
      requireReader(principal).pipe(
        Effect.zipRight(repo.listKbs(principal.tenantId, params.page_size, pageOffset(params))),
        Effect.map(({ rows, total }) => pageOf(params, rows.map(toKb), total))
      )

    const get = (principal: Principal, id: string) => kb(principal, id).pipe(Effect.map(toKb))

    const update = (principal: Principal, id: string, patch: { name?: string | undefined; description?: string | undefined }) =>
      Effect.gen(function*() {
        yield* kb(principal, id)
        yield* requireBuilder(principal)
        yield* repo.updateKb(principal.tenantId, id, patch)
        return yield* get(principal, id)
      })

    const remove = (principal: Principal, id: string) =>
      Effect.gen(function*() {
        yield* kb(principal, id)
        yield* requireBuilder(principal)
        yield* repo.deleteKb(principal.tenantId, id)
      })

    /** Stores a document (a new version when the same title and folder exist) and indexes it. */
    const addDocument = (principal: Principal, kbId: string, input: {
      title: string
      folder_path: string
      mime_type: string | undefined
      filename: string | undefined
      bytes: Uint8Array
    }) =>
      Effect.gen(function*() {
        yield* kb(principal, kbId)
        yield* requireBuilder(principal)
        const type = documentType(input.mime_type, input.filename ?? input.title)
        if (type === undefined) {
          return yield* badRequest("UNSUPPORTED_DOCUMENT", `Supported types: ${SUPPORTED_TYPES.join(", ")}`)
        }
        const { text, hash: contentHash, chunks } = isSmallText(type, input.bytes)
          ? smallText(input.bytes)
          : yield* workers.run(readTask, { mimeType: type, bytes: input.bytes }, { tenantId: principal.tenantId }).pipe(
            Effect.mapError((e) => taskError(e, "UNREADABLE_DOCUMENT", "file"))
          )
        if (text.trim().length === 0) return yield* badRequest("EMPTY_DOCUMENT", "No text could be extracted from the document")
        const row = yield* repo.upsertDocument(principal.tenantId, kbId, {
          title: input.title,
          mime_type: type,
          folder_path: canonicalFolder(input.folder_path),
          folder_label: input.folder_path.trim() === "" ? "/" : input.folder_path.trim(),
          content: text,
          content_hash: contentHash,
          size_bytes: input.bytes.byteLength,
          chunks,
          ready: !semantic.enabled
        })
        if (semantic.enabled) {
          yield* semantic.embedMissing(row.id)
          yield* events.markIndexed(row.id, row.version)
        }
        yield* events.arrived
        return toDoc(row)
      })

    const documents = (principal: Principal, kbId: string, params: { page: number; page_size: number; folder_prefix?: string | undefined }) =>
      Effect.gen(function*() {
        yield* kb(principal, kbId)
        const { rows, total } = yield* repo.listDocuments(
          principal.tenantId,
          kbId,
          params.page_size,
          (params.page - 1) * params.page_size,
          params.folder_prefix
        )
        return pageOf(params, rows.map(toDoc), total)
      })

    const document = (principal: Principal, kbId: string, id: string) =>
      Effect.gen(function*() {
        yield* kb(principal, kbId)
        const row = yield* repo.getDocument(principal.tenantId, kbId, id)
        if (Option.isNone(row)) return yield* notFound("Document")
        return { ...toDoc(row.value), content: row.value.content }
      })

    const removeDocument = (principal: Principal, kbId: string, id: string) =>
      Effect.gen(function*() {
        yield* kb(principal, kbId)
        yield* requireBuilder(principal)
        if (!(yield* repo.deleteDocument(principal.tenantId, kbId, id))) return yield* notFound("Document")
      })

    const lexical = (tenantId: TenantId, kbIds: ReadonlyArray<string>, query: string, topK: number) =>
      repo.search(tenantId, kbIds, query, topK).pipe(Effect.map((rows) => rows.map((r) => ({ ...r, score: Number(r.rank) }))))

    /** Blended when an embeddings model is configured (full-text alone if the query cannot be embedded). */
    const searchRows = (tenantId: TenantId, kbIds: ReadonlyArray<string>, query: string, topK: number, minScore: number) =>
      (semantic.enabled
        ? semantic.search(tenantId, kbIds, query, topK).pipe(
          Effect.catchAll((e) =>
            Effect.logWarning(`Query embedding failed, full-text search only: ${e.message}`).pipe(
              Effect.zipRight(lexical(tenantId, kbIds, query, topK))
            )
          )
        )
        : lexical(tenantId, kbIds, query, topK)).pipe(
          Effect.map((rows) =>
            rows
              .map((r) => ({ document_id: r.document_id, chunk_id: r.chunk_id, title: r.title, snippet: r.text.slice(0, 500), score: r.score }))
              .filter((r) => r.score >= minScore)
          )
        )

    const search = (principal: Principal, kbId: string, body: { query: string; top_k: number; min_score: number }) =>
      kb(principal, kbId).pipe(
        Effect.zipRight(searchRows(principal.tenantId, [kbId], body.query, body.top_k, body.min_score)),
        Effect.map((items) => ({ items }))
      )

    return traced("Knowledge", { create, list, get, update, remove, addDocument, documents, document, removeDocument, search, searchRows })
  })
}) {}

/** search_respond's retrieval, answered by this service. */
export const KnowledgeSearchLive = Layer.effect(
  KnowledgeSearch,
  Effect.map(Knowledge, (k) => ({
    // The runtime asks for the tenant of the run it executes (the run row's own tenant).
    search: (tenantId: string, kbIds: ReadonlyArray<string>, query: string, o: { topK: number; minScore: number }) =>
      k.searchRows(tenantId as TenantId, kbIds, query, o.topK, o.minScore)
  }))
)

/** Publish snapshots of the attached knowledge bases, and their restore on a reverted publish. */
export const KnowledgeSnapshotsLive = Layer.effect(
  KnowledgeSnapshots,
  Effect.map(Effect.all([KnowledgeRepo, SemanticIndex, WorkerPool]), ([repo, semantic, workers]) => ({
    capture: (tenantId, kbIds) =>
      repo.documentSet(tenantId, kbIds).pipe(
        Effect.map((rows) =>
          kbIds.map((id) => ({
            knowledge_base_id: id,
            documents: rows.filter((r) => r.kb_id === id).map((r) => ({ document_id: r.id, content_hash: r.content_hash }))
          }))
        )
      ),
    restore: (tenantId, snapshot) =>
      Effect.gen(function*() {
        let ok = true
        for (const kb of snapshot) {
          const current = yield* repo.documentSet(tenantId, [kb.knowledge_base_id])
          const wanted = new Set(kb.documents.map((d) => d.document_id))
          for (const doc of current) if (!wanted.has(doc.id)) yield* repo.softDelete(tenantId, doc.id)
          for (const doc of kb.documents) {
            const restored = yield* repo.restoreDocument(tenantId, doc.document_id, doc.content_hash)
            if (restored === false) ok = false
            else if (restored !== true) {
              const chunks = restored.content.length <= SMALL_TEXT_BYTES
                ? chunkText(restored.content)
                : yield* workers.run(chunkTask, { text: restored.content }, { tenantId }).pipe(Effect.orDie)
              yield* repo.writeChunks(tenantId, restored.kbId, doc.document_id, chunks)
              yield* semantic.embedMissing(doc.document_id)
            }
          }
        }
        return ok ? "ok" as const : "failed" as const
      })
  }))
)
