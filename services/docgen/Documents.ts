import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, JsonObject, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { taskError } from "../../platform/workers/TaskErrors.js"
import { WorkerPool } from "../../platform/workers/WorkerPool.js"
import { requireReader } from "../../schemas/Authorization.js"
import type { BulkCreate, DocumentCreate, DocumentListParams, DocumentPatch, ManualSave } from "../../schemas/Docgen.js"
import { VersionSource } from "../../schemas/Docgen.js"
import { badRequest, conflict, NotFound, notFound } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { DocgenTasks } from "./DocgenTasks.js"
// Only the type: HtmlUpdate runs on the worker pool's threads, and its parse5 and sanitize-html
// are not loaded on the main thread (0.1-0.2 s of every start).
import type { UpdateProblem } from "./HtmlUpdate.js"

const DocumentRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  owner_id: Schema.String,
  title: Schema.String,
  content_html: Schema.String,
  metadata: JsonObject,
  type: Schema.NullOr(Schema.String),
  version: Schema.Number,
  workflow_id: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.String),
  parent_document_id: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type DocumentRow = typeof DocumentRow.Type
const documentRows = decodeRows("docgen_documents", DocumentRow)

const VersionRow = Schema.Struct({
  number: Schema.Number,
  source: VersionSource,
  change_description: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  run_id: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  content_html: Schema.optional(Schema.String)
})
const versionRows = decodeRows("docgen_versions", VersionRow)

export const toDocument = ({ tenant_id: _t, owner_id: _o, content_html, ...row }: DocumentRow, withContent = true) =>
  withContent ? { ...row, content_html } : row

/** The owner of a write: a person, or the run of an AI Employee acting for them. */
export interface Writer {
  readonly tenantId: string
  readonly userId: string
  readonly runId?: string | null | undefined
}

const TABLE_LOSS_MESSAGE = "Table structure was lost: table rows or cells (tr, td, thead...) outside a <table> are dropped by the HTML parser. " +
  "Resend the section's complete inner HTML including the <table> element with all of its rows."

const problem = (p: UpdateProblem) =>
  p._tag === "TableLoss"
    ? badRequest("VALIDATION_ERROR", TABLE_LOSS_MESSAGE, [{ submitted_table_tags: p.submitted, parsed_table_tags: p.parsed }])
    : new NotFound({ code: "SECTION_NOT_FOUND", message: `The document has no <section id="${p.sectionId}">` })

/**
 * Documents: each belongs to the user who created it in their workspace (anything else is 404).
 * Every content change is a new version, written under a lock on the document so that concurrent
 * writers serialise and none is lost.
 */
export class Documents extends Effect.Service<Documents>()("Documents", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workers = yield* WorkerPool

    /** The update_document rules applied on the worker pool (parsing and sanitising take seconds on hostile markup). */
    const applyUpdate = (writer: Writer, current: string, content: string, sectionId: string | undefined) =>
      workers.run(DocgenTasks.update, { current, content, sectionId }, { tenantId: writer.tenantId }).pipe(
        Effect.mapError((e) => taskError(e, "VALIDATION_ERROR", "content_html")),
        Effect.flatMap((outcome) => "html" in outcome ? Effect.succeed(outcome.html) : Effect.fail(problem(outcome.problem)))
      )

    const find = (writer: Writer, id: string, lock = false) =>
      sql`SELECT * FROM docgen_documents WHERE tenant_id = ${writer.tenantId} AND owner_id = ${writer.userId} AND id = ${id}
        AND deleted_at IS NULL ${lock ? sql`FOR UPDATE` : sql``}`.pipe(
        documentRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Document")) : Effect.succeed(rows[0]))
      )

    const writerOf = (principal: Principal): Writer => ({ tenantId: principal.tenantId, userId: principal.userId })

    /** The next version of a locked document. */
    const commit = (
      doc: DocumentRow,
      html: string,
      source: typeof VersionSource.Type,
      description: string | null,
      writer: Writer,
      patch: { title?: string; metadata?: Record<string, unknown> } = {}
    ) =>
      Effect.gen(function*() {
        const number = doc.version + 1
        yield* sql`INSERT INTO docgen_versions ${
          sql.insert({
            document_id: doc.id,
            number,
            source,
            change_description: description,
            user_id: writer.userId,
            run_id: writer.runId ?? null,
            content_html: html
          })
        }`
        const [row] = yield* sql`UPDATE docgen_documents SET content_html = ${html}, version = ${number}, updated_at = now(),
          title = ${patch.title ?? doc.title}, metadata = ${JSON.stringify(patch.metadata ?? doc.metadata)}::jsonb
          WHERE id = ${doc.id} RETURNING *`.pipe(documentRows)
        return row
      })

    const insert = (
      writer: Writer,
      body: {
        title: string
        content_html?: string | undefined
        metadata?: Record<string, unknown> | undefined
        type?: string | undefined
        workflow_id?: string | undefined
        session_id?: string | undefined
        parent_document_id?: string | null | undefined
      }
    ) =>
      Effect.gen(function*() {
        const html = yield* applyUpdate(writer, "", body.content_html ?? "", undefined)
        const id = randomUUID()
        const [row] = yield* sql`INSERT INTO docgen_documents ${
          sql.insert({
            id,
            tenant_id: writer.tenantId,
            owner_id: writer.userId,
            title: body.title,
            content_html: html,
            metadata: JSON.stringify(body.metadata ?? {}),
            type: body.type ?? (typeof body.metadata?.type === "string" ? body.metadata.type : null),
            workflow_id: body.workflow_id ?? null,
            session_id: body.session_id ?? null,
            parent_document_id: body.parent_document_id ?? null
          })
        } RETURNING *`.pipe(documentRows, Effect.orDie)
        yield* sql`INSERT INTO docgen_versions ${
          sql.insert({ document_id: id, number: 1, source: "manual_save", change_description: "Created", user_id: writer.userId, content_html: html })
        }`.pipe(Effect.orDie)
        return row
      })

    const create = (principal: Principal, body: typeof DocumentCreate.Type) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        if (body.parent_document_id !== undefined) yield* find(writerOf(principal), body.parent_document_id)
        return toDocument(yield* insert(writerOf(principal), body))
      })

    const bulk = (principal: Principal, body: typeof BulkCreate.Type) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const writer = writerOf(principal)
        return yield* sql.withTransaction(Effect.gen(function*() {
          const parent = body.parent_document_id !== undefined
            ? yield* find(writer, body.parent_document_id, true)
            : body.title !== undefined
            ? yield* insert(writer, { title: body.title, workflow_id: body.workflow_id })
            : yield* badRequest("VALIDATION_ERROR", "Give the new parent's title or an existing parent_document_id", [{ path: ["title"], message: "required" }])
          const children = yield* Effect.forEach(body.children, (child) =>
            insert(writer, { ...child, workflow_id: body.workflow_id, parent_document_id: parent.id }))
          return {
            parent: toDocument(parent),
            children: children.map((c) =>
              toDocument(c)
            )
          }
        })).pipe(Effect.catchTag("SqlError", Effect.die))
      })

    const list = (principal: Principal, p: typeof DocumentListParams.Type) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const where = sql.and([
          sql`tenant_id = ${principal.tenantId}`,
          sql`owner_id = ${principal.userId}`,
          sql`deleted_at IS NULL`,
          ...(p.type !== undefined ? [sql`type = ${p.type}`] : []),
          ...(p.parent_document_id !== undefined ? [sql`parent_document_id = ${p.parent_document_id}`] : [])
        ])
        const rows = yield* sql`SELECT * FROM docgen_documents WHERE ${where} ORDER BY updated_at DESC, id LIMIT ${p.limit} OFFSET ${p.offset}`.pipe(
          documentRows,
          Effect.orDie
        )
        const [c] = yield* sql`SELECT count(*)::int AS n FROM docgen_documents WHERE ${where}`.pipe(
          decodeRows("docgen_documents", Schema.Struct({ n: Schema.Number }))
        ).pipe(Effect.orDie)
        return { items: rows.map((r) => toDocument(r, p.include_content === true)), total: c?.n ?? 0, limit: p.limit, offset: p.offset }
      })

    /** Content by the update_document rules, as a new version (the caller's transaction holds the lock). */
    const writeContent = (
      writer: Writer,
      id: string,
      update: { content_html: string; target_section_id?: string | undefined; change_description?: string | undefined },
      source: (doc: DocumentRow) => typeof VersionSource.Type,
      patch: { title?: string; metadata?: Record<string, unknown> } = {}
    ) =>
      sql.withTransaction(Effect.gen(function*() {
        const doc = yield* find(writer, id, true)
        const html = yield* applyUpdate(writer, doc.content_html, update.content_html, update.target_section_id)
        return yield* commit(doc, html, source(doc), update.change_description ?? null, writer, patch)
      })).pipe(Effect.catchTag("SqlError", Effect.die))

    const update = (principal: Principal, id: string, body: typeof DocumentPatch.Type) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const writer = writerOf(principal)
        const current = yield* find(writer, id)
        const patch = {
          ...(body.title !== undefined ? { title: body.title } : {}),
          ...(body.metadata !== undefined ? { metadata: { ...current.metadata, ...body.metadata } } : {})
        }
        if (body.content_html !== undefined) {
          return toDocument(yield* writeContent(writer, id, { ...body, content_html: body.content_html }, () => "manual_save", patch))
        }
        if (body.target_section_id !== undefined) {
          return yield* badRequest("VALIDATION_ERROR", "target_section_id needs content_html", [{ path: ["content_html"], message: "required" }])
        }
        const [row] = yield* sql`UPDATE docgen_documents SET title = ${patch.title ?? current.title},
          metadata = ${JSON.stringify(patch.metadata ?? current.metadata)}::jsonb, updated_at = now() WHERE id = ${id} RETURNING *`.pipe(
          documentRows,
          Effect.orDie
        )
        return toDocument(row)
      })

    const save = (principal: Principal, id: string, body: typeof ManualSave.Type) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const writer = writerOf(principal)
        return yield* sql.withTransaction(Effect.gen(function*() {
          const doc = yield* find(writer, id, true)
          if (doc.version !== body.base_version) {
            return yield* conflict(
              "DOCUMENT_CHANGED",
              `The document is at version ${doc.version}, past the version ${body.base_version} this save was based on`
            )
          }
          const html = yield* applyUpdate(writer, doc.content_html, body.content_html, undefined)
          return toDocument(yield* commit(doc, html, "manual_save", body.change_description ?? null, writer))
        })).pipe(Effect.catchTag("SqlError", Effect.die))
      })

    const restore = (principal: Principal, id: string, number: number) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const writer = writerOf(principal)
        return yield* sql.withTransaction(Effect.gen(function*() {
          const doc = yield* find(writer, id, true)
          const [version] = yield* sql`SELECT number, source, change_description, user_id, run_id, created_at, content_html FROM docgen_versions
            WHERE document_id = ${id} AND number = ${number}`.pipe(versionRows)
          if (version === undefined) return yield* notFound("Version")
          return toDocument(yield* commit(doc, version.content_html ?? "", "restore", `Restored version ${number}`, writer))
        })).pipe(Effect.catchTag("SqlError", Effect.die))
      })

    /** The outline of an outline request's HTML or Markdown (parsed on the worker pool). */
    const outline = (principal: Principal, format: "html" | "markdown", content: string) =>
      workers.run(DocgenTasks.outline, { format, content }, { tenantId: principal.tenantId }).pipe(
        Effect.mapError((e) => taskError(e, "VALIDATION_ERROR", "content")),
        Effect.map((sections) => ({ sections }))
      )

    return traced("Documents", {
      outline,
      create,
      bulk,
      list,
      update,
      save,
      restore,
      find,
      writerOf,
      /** An AI Employee's write: ai_create on an empty document, else ai_edit, with the run's id. */
      writeFromRun: (
        writer: Writer,
        id: string,
        update: { content_html: string; target_section_id?: string | undefined; change_description?: string | undefined }
      ) => writeContent(writer, id, update, (doc) => doc.content_html.trim() === "" ? "ai_create" : "ai_edit"),
      get: (principal: Principal, id: string) => Effect.zipRight(requireReader(principal), Effect.map(find(writerOf(principal), id), (r) => toDocument(r))),
      remove: (principal: Principal, id: string) =>
        Effect.gen(function*() {
          yield* find(writerOf(principal), id)
          yield* sql`UPDATE docgen_documents SET deleted_at = now() WHERE id = ${id}`.pipe(Effect.orDie)
        }),
      versions: (principal: Principal, id: string) =>
        Effect.gen(function*() {
          yield* find(writerOf(principal), id)
          const rows = yield* sql`SELECT number, source, change_description, user_id, run_id, created_at FROM docgen_versions
            WHERE document_id = ${id} ORDER BY number DESC`.pipe(versionRows, Effect.orDie)
          return { items: rows }
        }),
      version: (principal: Principal, id: string, number: number) =>
        Effect.gen(function*() {
          yield* find(writerOf(principal), id)
          const [row] = yield* sql`SELECT number, source, change_description, user_id, run_id, created_at, content_html FROM docgen_versions
            WHERE document_id = ${id} AND number = ${number}`.pipe(versionRows, Effect.orDie)
          return row === undefined ? yield* notFound("Version") : row
        })
    })
  })
}) {}
