import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, JsonObjectOf, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { requireReader } from "../../schemas/Authorization.js"
import type { Anchor, ThreadBatchParams } from "../../schemas/Docgen.js"
import { notFound } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { Documents } from "./Documents.js"

const ThreadRow = Schema.Struct({
  id: Schema.UUID,
  document_id: Schema.UUID,
  anchor: JsonObjectOf<typeof Anchor.Type>(),
  status: Schema.Literal("open", "resolved"),
  created_by: Schema.String,
  resolved_by: Schema.NullOr(Schema.String),
  resolved_at: Schema.NullOr(Timestamp),
  created_at: Timestamp
})
type ThreadRow = typeof ThreadRow.Type
const threadRows = decodeRows("docgen_threads", ThreadRow)

const CommentRow = Schema.Struct({
  id: Schema.UUID,
  thread_id: Schema.UUID,
  author_id: Schema.String,
  content: Schema.String,
  deleted_at: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp
})
const commentRows = decodeRows("docgen_comments", CommentRow)

/**
 * Comment threads on the caller's documents: a thread is anchored to a section and/or a quoted
 * text range and opens with its first comment; replies follow; PATCH resolves or reopens;
 * deleting a thread removes its replies, deleting a reply hides its text (it stays in place).
 */
export class Comments extends Effect.Service<Comments>()("Comments", {
  dependencies: [Documents.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* Documents

    const withComments = (threads: ReadonlyArray<ThreadRow>) =>
      Effect.gen(function*() {
        if (threads.length === 0) return []
        const comments = yield* sql`SELECT * FROM docgen_comments WHERE thread_id IN ${sql.in(threads.map((t) => t.id))} ORDER BY created_at, id`.pipe(
          commentRows,
          Effect.orDie
        )
        return threads.map((t) => ({
          ...t,
          comments: comments.filter((c) => c.thread_id === t.id).map((c) => ({
            id: c.id,
            author_id: c.author_id,
            content: c.deleted_at === null ? c.content : "",
            deleted: c.deleted_at !== null,
            created_at: c.created_at,
            updated_at: c.updated_at
          }))
        }))
      })

    const thread = (principal: Principal, documentId: string, threadId: string) =>
      Effect.gen(function*() {
        yield* documents.find(documents.writerOf(principal), documentId)
        const [row] = yield* sql`SELECT * FROM docgen_threads WHERE id = ${threadId} AND document_id = ${documentId}`.pipe(threadRows, Effect.orDie)
        if (row === undefined) return yield* notFound("Comment thread")
        return (yield* withComments([row]))[0]
      })

    return traced("Comments", {
      list: (principal: Principal, documentId: string) =>
        Effect.gen(function*() {
          yield* documents.find(documents.writerOf(principal), documentId)
          const rows = yield* sql`SELECT * FROM docgen_threads WHERE document_id = ${documentId} ORDER BY created_at, id`.pipe(threadRows, Effect.orDie)
          return { items: yield* withComments(rows) }
        }),
      /** Threads across the caller's documents (all, or those listed). */
      batch: (principal: Principal, params: typeof ThreadBatchParams.Type) =>
        Effect.gen(function*() {
          yield* requireReader(principal)
          const ids = (params.document_ids ?? "").split(",").map((s) => s.trim()).filter((s) => /^[0-9a-f-]{36}$/i.test(s))
          const rows = yield* sql`SELECT t.* FROM docgen_threads t JOIN docgen_documents d ON d.id = t.document_id
            WHERE d.tenant_id = ${principal.tenantId} AND d.owner_id = ${principal.userId} AND d.deleted_at IS NULL
            ${ids.length > 0 ? sql`AND t.document_id IN ${sql.in(ids)}` : sql``}
            ${params.status !== undefined ? sql`AND t.status = ${params.status}` : sql``}
            ORDER BY t.created_at, t.id`.pipe(threadRows, Effect.orDie)
          return { items: yield* withComments(rows) }
        }),
      create: (principal: Principal, documentId: string, body: { content: string; anchor: typeof Anchor.Type }) =>
        Effect.gen(function*() {
          yield* documents.find(documents.writerOf(principal), documentId)
          const id = randomUUID()
          yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO docgen_threads ${
              sql.insert({ id, document_id: documentId, anchor: JSON.stringify(body.anchor), created_by: principal.userId })
            }`
            yield* sql`INSERT INTO docgen_comments ${sql.insert({ id: randomUUID(), thread_id: id, author_id: principal.userId, content: body.content })}`
          })).pipe(Effect.orDie)
          return yield* thread(principal, documentId, id)
        }),
      setStatus: (principal: Principal, documentId: string, threadId: string, status: "open" | "resolved") =>
        Effect.gen(function*() {
          yield* thread(principal, documentId, threadId)
          yield* (status === "resolved"
            ? sql`UPDATE docgen_threads SET status = 'resolved', resolved_by = ${principal.userId}, resolved_at = now() WHERE id = ${threadId}`
            : sql`UPDATE docgen_threads SET status = 'open', resolved_by = NULL, resolved_at = NULL WHERE id = ${threadId}`).pipe(Effect.orDie)
          return yield* thread(principal, documentId, threadId)
        }),
      remove: (principal: Principal, documentId: string, threadId: string) =>
        Effect.gen(function*() {
          yield* thread(principal, documentId, threadId)
          yield* sql`DELETE FROM docgen_threads WHERE id = ${threadId}`.pipe(Effect.orDie)
        }),
      reply: (principal: Principal, documentId: string, threadId: string, content: string) =>
        Effect.gen(function*() {
          yield* thread(principal, documentId, threadId)
          yield* sql`INSERT INTO docgen_comments ${sql.insert({ id: randomUUID(), thread_id: threadId, author_id: principal.userId, content })}`.pipe(
            Effect.orDie
          )
          return yield* thread(principal, documentId, threadId)
        }),
      editReply: (principal: Principal, documentId: string, threadId: string, commentId: string, content: string) =>
        Effect.gen(function*() {
          yield* thread(principal, documentId, threadId)
          const rows = yield* sql`UPDATE docgen_comments SET content = ${content}, updated_at = now()
            WHERE id = ${commentId} AND thread_id = ${threadId} AND deleted_at IS NULL RETURNING id`.pipe(Effect.orDie)
          if (rows.length === 0) return yield* notFound("Comment")
          return yield* thread(principal, documentId, threadId)
        }),
      removeReply: (principal: Principal, documentId: string, threadId: string, commentId: string) =>
        Effect.gen(function*() {
          yield* thread(principal, documentId, threadId)
          const rows = yield* sql`UPDATE docgen_comments SET deleted_at = now() WHERE id = ${commentId} AND thread_id = ${threadId}
            AND deleted_at IS NULL RETURNING id`.pipe(Effect.orDie)
          if (rows.length === 0) return yield* notFound("Comment")
        })
    })
  })
}) {}
