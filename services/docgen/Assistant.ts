import { SqlClient } from "@effect/sql"
import { Effect, Either, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, JsonArrayOf, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { KnowledgeSearch } from "../../runtime/agents/KnowledgeSearch.js"
import { ChatModel } from "../../runtime/models/ChatModel.js"
import { ModelRegistry } from "../../runtime/models/ModelRegistry.js"
import { requireReader } from "../../schemas/Authorization.js"
import type { ChatMessageCreate, ChatSessionCreate } from "../../schemas/Docgen.js"
import { notFound, unprocessable } from "../../schemas/Errors.js"
import type { WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { isRecord } from "../../schemas/Records.js"
import { defaultWorkflowConfig, type WorkflowConfig } from "../../schemas/Workflow.js"
import { AiEmployees } from "../ports/AiEmployees.js"
import { Documents } from "./Documents.js"

const SessionRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  owner_id: Schema.String,
  document_id: Schema.NullOr(Schema.String),
  workflow_id: Schema.NullOr(Schema.String),
  title: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp
})
type SessionRow = typeof SessionRow.Type
const sessionRows = decodeRows("docgen_chat_sessions", SessionRow)
const toSession = ({ tenant_id: _t, owner_id: _o, ...row }: SessionRow) => row

const MessageRow = Schema.Struct({
  id: Schema.UUID,
  role: Schema.Literal("user", "assistant"),
  content: Schema.String,
  mode: Schema.Literal("edit", "qa"),
  selected_html: Schema.NullOr(Schema.String),
  replacement_text: Schema.NullOr(Schema.String),
  sources: JsonArrayOf<{ document_id: string; title: string; snippet: string }>(),
  created_at: Timestamp
})
const messageRows = decodeRows("docgen_chat_messages", MessageRow)

const HISTORY = 20
const MAX_DOCUMENT_CHARS = 60_000

/**
 * The inline assistant: chat sessions on a document (`edit` rewrites the selected HTML and answers
 * with `replacement_text`; `qa` answers about the document) and document-less Q&A sessions whose
 * AI Employee's knowledge bases are searched. Replies come synchronously from the workspace's
 * models (the AI Employee's model settings when the session names one).
 */
export class Assistant extends Effect.Service<Assistant>()("Assistant", {
  dependencies: [Documents.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* Documents
    const aiEmployees = yield* AiEmployees
    const registry = yield* ModelRegistry
    const model = yield* ChatModel
    const knowledge = yield* KnowledgeSearch

    const find = (principal: Principal, documentId: string | null, id: string) =>
      sql`SELECT * FROM docgen_chat_sessions WHERE tenant_id = ${principal.tenantId} AND owner_id = ${principal.userId} AND id = ${id}
        AND ${documentId === null ? sql`document_id IS NULL` : sql`document_id = ${documentId}`}`.pipe(
        sessionRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Chat session")) : Effect.succeed(rows[0]))
      )

    /** no_access reaches no session (403); a document's sessions need the document (its owner's). */
    const documentOf = (principal: Principal, documentId: string | null) =>
      Effect.zipRight(requireReader(principal), documentId === null ? Effect.succeed(undefined) : documents.find(documents.writerOf(principal), documentId))

    const create = (principal: Principal, documentId: string | null, body: typeof ChatSessionCreate.Type) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const doc = yield* documentOf(principal, documentId)
        const workflowId = body.workflow_id ?? doc?.workflow_id ?? null
        if (body.workflow_id !== undefined) yield* aiEmployees.visible(principal, body.workflow_id as WorkflowId)
        const [row] = yield* sql`INSERT INTO docgen_chat_sessions ${
          sql.insert({
            id: randomUUID(),
            tenant_id: principal.tenantId,
            owner_id: principal.userId,
            document_id: documentId,
            workflow_id: workflowId,
            title: body.title ?? (doc !== undefined ? `About ${doc.title}` : "Questions")
          })
        } RETURNING *`.pipe(sessionRows, Effect.orDie)
        return toSession(row)
      })

    const messages = (sessionId: string) =>
      sql`SELECT id, role, content, mode, selected_html, replacement_text, sources, created_at FROM docgen_chat_messages
        WHERE session_id = ${sessionId} ORDER BY created_at, id`.pipe(messageRows, Effect.orDie)

    const store = (
      sessionId: string,
      m: {
        role: "user" | "assistant"
        content: string
        mode: "edit" | "qa"
        selected_html?: string | null
        replacement_text?: string | null
        sources?: ReadonlyArray<unknown>
      }
    ) =>
      sql`INSERT INTO docgen_chat_messages ${
        sql.insert({
          id: randomUUID(),
          session_id: sessionId,
          role: m.role,
          content: m.content,
          mode: m.mode,
          selected_html: m.selected_html ?? null,
          replacement_text: m.replacement_text ?? null,
          sources: JSON.stringify(m.sources ?? [])
        })
      } RETURNING id, role, content, mode, selected_html, replacement_text, sources, created_at`.pipe(messageRows, Effect.orDie, Effect.map((rows) => rows[0]))

    const send = (principal: Principal, documentId: string | null, sessionId: string, body: typeof ChatMessageCreate.Type) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const session = yield* find(principal, documentId, sessionId)
        const doc = yield* documentOf(principal, documentId)
        const workflow = session.workflow_id === null
          ? undefined
          : yield* Effect.option(aiEmployees.visible(principal, session.workflow_id as WorkflowId)).pipe(Effect.map(Option.getOrUndefined))
        const config: WorkflowConfig = workflow?.config ?? defaultWorkflowConfig
        const chosen = yield* registry.choose(principal.tenantId, config, undefined)
        if (chosen === undefined) return yield* unprocessable("MODEL_UNAVAILABLE", "No model is available for the assistant")
        const history = (yield* messages(sessionId)).slice(-HISTORY).map((m) => ({ role: m.role, content: m.content }))
        const hits = doc === undefined && workflow !== undefined && workflow.knowledge_base_ids.length > 0
          ? yield* knowledge.search(principal.tenantId, workflow.knowledge_base_ids, body.content, { topK: 5, minScore: 0 })
          : []
        const sources = hits.map((h) => ({ document_id: h.document_id, title: h.title, snippet: h.snippet }))
        const context = doc !== undefined
          ? `The document "${doc.title}" (HTML):\n${doc.content_html.slice(0, MAX_DOCUMENT_CHARS)}`
          : hits.length > 0
          ? `Answer from these sources and cite them as [n]:\n${hits.map((h, i) => `[${i + 1}] ${h.title}\n${h.snippet}`).join("\n\n")}`
          : "No documents are attached; say so when the answer needs them."
        const edit = body.mode === "edit"
        const system = edit
          ? `You edit part of a document. ${context}\n\nThe user selected this HTML:\n${
            body.selected_html ?? ""
          }\n\nRewrite the selection as asked. Reply with JSON {"reply": "a short note on what you changed", "replacement_text": "the new HTML for the selection"}.`
          : `You answer questions about a document for its author. ${context}`
        const reply = yield* model.complete({
          model: chosen.model,
          provider: chosen.provider,
          messages: [{ role: "system", content: system }, ...history, { role: "user", content: body.content }],
          ...(edit
            ? {
              jsonSchema: {
                name: "edit",
                schema: {
                  type: "object",
                  required: ["reply", "replacement_text"],
                  properties: { reply: { type: "string" }, replacement_text: { type: "string" } }
                }
              }
            }
            : {})
        }).pipe(Effect.mapError((e) => unprocessable("MODEL_UNAVAILABLE", `The assistant's model failed: ${e.message}`)))
        const parsed = edit ? Either.getOrUndefined(Either.try(() => JSON.parse(reply.text) as unknown)) : undefined
        const answer = edit && isRecord(parsed)
          ? { content: String(parsed.reply ?? ""), replacement: typeof parsed.replacement_text === "string" ? parsed.replacement_text : null }
          : { content: reply.text, replacement: null }
        const user = yield* store(sessionId, { role: "user", content: body.content, mode: body.mode, selected_html: body.selected_html ?? null })
        const assistant = yield* store(sessionId, {
          role: "assistant",
          content: answer.content,
          mode: body.mode,
          replacement_text: answer.replacement,
          sources
        })
        yield* sql`UPDATE docgen_chat_sessions SET updated_at = now() WHERE id = ${sessionId}`.pipe(Effect.orDie)
        return { message: user, reply: assistant }
      })

    return traced("Assistant", {
      list: (principal: Principal, documentId: string | null) =>
        Effect.gen(function*() {
          yield* documentOf(principal, documentId)
          const rows = yield* sql`SELECT * FROM docgen_chat_sessions WHERE tenant_id = ${principal.tenantId} AND owner_id = ${principal.userId}
            AND ${documentId === null ? sql`document_id IS NULL` : sql`document_id = ${documentId}`} ORDER BY updated_at DESC, id`.pipe(
            sessionRows,
            Effect.orDie
          )
          return { items: rows.map(toSession) }
        }),
      create,
      get: (principal: Principal, documentId: string | null, id: string) => Effect.map(find(principal, documentId, id), toSession),
      rename: (principal: Principal, documentId: string | null, id: string, title: string) =>
        Effect.gen(function*() {
          yield* find(principal, documentId, id)
          const [row] = yield* sql`UPDATE docgen_chat_sessions SET title = ${title}, updated_at = now() WHERE id = ${id} RETURNING *`.pipe(
            sessionRows,
            Effect.orDie
          )
          return toSession(row)
        }),
      remove: (principal: Principal, documentId: string | null, id: string) =>
        Effect.gen(function*() {
          yield* find(principal, documentId, id)
          yield* sql`DELETE FROM docgen_chat_sessions WHERE id = ${id}`.pipe(Effect.orDie)
        }),
      messages: (principal: Principal, documentId: string | null, id: string) =>
        Effect.gen(function*() {
          yield* find(principal, documentId, id)
          return { items: yield* messages(id) }
        }),
      send
    })
  })
}) {}
