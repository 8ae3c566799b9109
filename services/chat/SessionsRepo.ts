import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { decodeRows, JsonObject, Timestamp } from "../../platform/Rows.js"
import { uuidV7 } from "../../platform/TimedId.js"
import { traced } from "../../platform/Traced.js"
import type { ChatSession } from "../../schemas/Chat.js"
import { TenantId, WorkflowId } from "../../schemas/Ids.js"

export const SessionRow = Schema.Struct({
  id: Schema.String,
  tenant_id: TenantId,
  workflow_id: WorkflowId,
  user_id: Schema.String,
  title: Schema.String,
  title_source: Schema.Literal("empty", "generated", "user"),
  input_params: JsonObject,
  channel: Schema.String,
  external_subject: Schema.NullOr(Schema.String),
  conversation_id: Schema.NullOr(Schema.String),
  single_shot: Schema.Boolean,
  status: Schema.Literal("active", "transferred"),
  last_activity_at: Timestamp,
  created_at: Timestamp
})
export type SessionRow = typeof SessionRow.Type

const sessionRows = decodeRows("chat_sessions", SessionRow)

export const toSession = (r: SessionRow): ChatSession => ({
  id: r.id as ChatSession["id"],
  tenant_id: r.tenant_id,
  workflow_id: r.workflow_id,
  user_id: r.user_id as ChatSession["user_id"],
  title: r.title,
  input_params: r.input_params,
  channel: r.channel,
  ...(r.conversation_id !== null ? { conversation_id: r.conversation_id } : {}),
  status: r.status,
  last_activity_at: r.last_activity_at,
  created_at: r.created_at
})

export interface NewSession {
  readonly tenant_id: TenantId
  readonly workflow_id: string
  readonly user_id: string
  readonly input_params: Record<string, unknown>
  readonly channel: string
  readonly external_subject?: string | null
  readonly conversation_id?: string | null
  readonly single_shot?: boolean
}

/** Chat sessions: SQL only. Deleted sessions are never returned. */
export class SessionsRepo extends Effect.Service<SessionsRepo>()("SessionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (s: NewSession) =>
      sql`INSERT INTO chat_sessions ${
        sql.insert({
          id: uuidV7(),
          ...s,
          external_subject: s.external_subject ?? null,
          conversation_id: s.conversation_id ?? null,
          single_shot: s.single_shot ?? false,
          input_params: JSON.stringify(s.input_params)
        })
      } RETURNING *`.pipe(sessionRows).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    const get = (tenantId: TenantId, id: string) =>
      sql`SELECT * FROM chat_sessions WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`.pipe(sessionRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const list = (tenantId: TenantId, userId: string, workflowId: string | undefined, limit: number, offset: number) => {
      const where = sql.and([
        sql`tenant_id = ${tenantId}`,
        sql`user_id = ${userId}`,
        sql`deleted_at IS NULL`,
        ...(workflowId !== undefined ? [sql`workflow_id = ${workflowId}`] : [])
      ])
      return Effect.all([
        sql`SELECT * FROM chat_sessions WHERE ${where} ORDER BY last_activity_at DESC, id LIMIT ${limit} OFFSET ${offset}`.pipe(sessionRows),
        sql`SELECT count(*)::int AS total FROM chat_sessions WHERE ${where}`.pipe(decodeRows("chat_sessions", Schema.Struct({ total: Schema.Number })))
      ]).pipe(Effect.map(([rows, [c]]) => ({ rows, total: c?.total ?? 0 })), Effect.orDie)
    }

    /** The owner's latest session with this AI Employee on this channel. */
    const latest = (tenantId: TenantId, userId: string, workflowId: string, channel: string) =>
      sql`SELECT * FROM chat_sessions WHERE tenant_id = ${tenantId} AND user_id = ${userId}
          AND workflow_id = ${workflowId} AND channel = ${channel} AND deleted_at IS NULL AND NOT single_shot
        ORDER BY last_activity_at DESC, created_at DESC LIMIT 1`.pipe(sessionRows).pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie)

    /** The session a channel's conversation id names, created on first use (concurrent first uses meet on one row). */
    const conversation = (s: NewSession & { readonly conversation_id: string }) =>
      Effect.gen(function*() {
        const find = sql`SELECT * FROM chat_sessions WHERE tenant_id = ${s.tenant_id} AND workflow_id = ${s.workflow_id}
            AND channel = ${s.channel} AND user_id = ${s.user_id} AND coalesce(external_subject, '') = ${s.external_subject ?? ""}
            AND conversation_id = ${s.conversation_id} AND deleted_at IS NULL`.pipe(sessionRows)
        const [found] = yield* find
        if (found !== undefined) return found
        const [created] = yield* sql`INSERT INTO chat_sessions ${
          sql.insert({
            id: uuidV7(),
            ...s,
            external_subject: s.external_subject ?? null,
            single_shot: false,
            input_params: JSON.stringify(s.input_params)
          })
        } ON CONFLICT DO NOTHING RETURNING *`.pipe(sessionRows)
        if (created !== undefined) return created
        const [raced] = yield* find
        return raced
      }).pipe(Effect.orDie)

    const rename = (tenantId: TenantId, id: string, title: string) =>
      sql`UPDATE chat_sessions SET title = ${title}, title_source = ${title === "" ? "empty" : "user"}
        WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL RETURNING *`.pipe(sessionRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const softDelete = (tenantId: TenantId, id: string) =>
      sql`UPDATE chat_sessions SET deleted_at = now() WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** A generated title, unless the owner named the session meanwhile. */
    const setGeneratedTitle = (id: string, title: string) =>
      sql`UPDATE chat_sessions SET title = ${title}, title_source = 'generated' WHERE id = ${id} AND title_source = 'empty'`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    return traced("SessionsRepo", { insert, get, list, latest, conversation, rename, softDelete, setGeneratedTitle })
  })
}) {}
