import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { BigIntText, decodeRows, JsonArrayOf, JsonObject, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import type { ChatMessage } from "../../schemas/Chat.js"
import { TenantId } from "../../schemas/Ids.js"
import type { ChatReply } from "./ChatReply.js"

export const MessageRow = Schema.Struct({
  id: Schema.String,
  seq: BigIntText,
  turn_seq: BigIntText,
  session_id: Schema.String,
  tenant_id: TenantId,
  role: Schema.Literal("user", "assistant"),
  content: Schema.String,
  status: Schema.Literal("queued", "running", "answered", "completed", "failed", "cancelled"),
  run_id: Schema.NullOr(Schema.String),
  reply_to: Schema.NullOr(Schema.String),
  assistant_message_id: Schema.NullOr(Schema.String),
  is_dry_run: Schema.Boolean,
  user_context: Schema.NullOr(JsonObject),
  sources: JsonArrayOf<ChatReply["sources"][number]>(),
  response_buttons: JsonArrayOf<ChatReply["response_buttons"][number]>(),
  error: Schema.NullOr(Schema.String),
  sentiment: Schema.NullOr(Schema.Literal("positive", "negative")),
  feedback_category: Schema.NullOr(Schema.String),
  feedback_text: Schema.NullOr(Schema.String),
  feedback_at: Schema.NullOr(Timestamp),
  feedback_run_id: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  completed_at: Schema.NullOr(Timestamp)
})
export type MessageRow = typeof MessageRow.Type

const messageRows = decodeRows("chat_messages", MessageRow)

export const toMessage = (r: MessageRow, content = r.content): ChatMessage => ({
  id: r.id as ChatMessage["id"],
  session_id: r.session_id as ChatMessage["session_id"],
  role: r.role,
  content,
  status: r.status,
  ...(r.run_id !== null ? { run_id: r.run_id } : {}),
  ...(r.assistant_message_id !== null ? { assistant_message_id: r.assistant_message_id as ChatMessage["id"] } : {}),
  ...(r.reply_to !== null ? { reply_to: r.reply_to as ChatMessage["id"] } : {}),
  is_dry_run: r.is_dry_run,
  sources: r.sources,
  response_buttons: r.response_buttons,
  ...(r.error !== null ? { error: r.error } : {}),
  ...(r.sentiment !== null && r.feedback_at !== null
    ? {
      feedback: {
        sentiment: r.sentiment,
        ...(r.feedback_category !== null ? { category: r.feedback_category } : {}),
        ...(r.feedback_text !== null ? { feedback_text: r.feedback_text } : {}),
        ...(r.feedback_run_id !== null ? { run_id: r.feedback_run_id } : {}),
        updated_at: r.feedback_at
      }
    }
    : {}),
  created_at: r.created_at,
  ...(r.completed_at !== null ? { completed_at: r.completed_at } : {})
})

/** How many earlier messages a run sees as `chat.history`. */
export const HISTORY_LIMIT = 50

/** Chat messages: SQL only. A user message row is also its turn (queued, running, answered...). */
export class MessagesRepo extends Effect.Service<MessagesRepo>()("MessagesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insertUser = (m: {
      id: string
      session_id: string
      tenant_id: TenantId
      content: string
      status: "queued" | "running"
      run_id: string
      assistant_message_id: string
      is_dry_run: boolean
      user_context: Record<string, unknown> | null
    }) =>
      sql`INSERT INTO chat_messages ${
        sql.insert({ ...m, role: "user", user_context: m.user_context === null ? null : JSON.stringify(m.user_context) })
      } RETURNING *`.pipe(messageRows).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    const insertAssistant = (m: {
      id: string
      session_id: string
      tenant_id: TenantId
      content: string
      status: "completed" | "failed" | "cancelled"
      run_id: string
      reply_to: string
      sources: ChatReply["sources"]
      response_buttons: ChatReply["response_buttons"]
      error: string | null
    }) =>
      sql`SELECT seq FROM chat_messages WHERE id = ${m.reply_to}`.pipe(decodeRows("chat_messages", Schema.Struct({ seq: Schema.String }))).pipe(
        Effect.flatMap(([question]) =>
          sql`INSERT INTO chat_messages ${
            sql.insert({
              ...m,
              role: "assistant",
              is_dry_run: false,
              sources: JSON.stringify(m.sources),
              response_buttons: JSON.stringify(m.response_buttons),
              completed_at: new Date(),
              reply_seq: question?.seq ?? null
            })
          } ON CONFLICT (session_id, id) DO NOTHING`
        ),
        Effect.asVoid,
        Effect.orDie
      )

    /** Turn by turn: each answer right after its question, whenever it was written. */
    const list = (tenantId: TenantId, sessionId: string) =>
      sql`SELECT * FROM chat_messages WHERE tenant_id = ${tenantId} AND session_id = ${sessionId}
        ORDER BY turn_seq, role = 'assistant', seq`.pipe(messageRows).pipe(Effect.orDie)

    /** What a turn's run sees: the turns before it, dry runs and failed answers left out. */
    const history = (sessionId: string, turnSeq: string) =>
      sql`SELECT role, content FROM (
          SELECT role, content, turn_seq, seq FROM chat_messages WHERE session_id = ${sessionId} AND turn_seq < ${turnSeq}
            AND NOT is_dry_run AND (role = 'user' OR status = 'completed')
          ORDER BY turn_seq DESC, role = 'assistant' DESC, seq DESC LIMIT ${HISTORY_LIMIT}
        ) recent ORDER BY turn_seq, role = 'assistant', seq`.pipe(
        decodeRows("chat_messages", Schema.Struct({ role: Schema.Literal("user", "assistant"), content: Schema.String }))
      ).pipe(Effect.orDie)

    const get = (tenantId: TenantId, id: string) =>
      sql`SELECT * FROM chat_messages WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(messageRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const turnOfRun = (runId: string) =>
      sql`SELECT * FROM chat_messages WHERE run_id = ${runId} AND role = 'user'`.pipe(messageRows).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    /** Ends a turn once; undefined when it had already ended. */
    const finishTurn = (id: string, status: "answered" | "failed" | "cancelled") =>
      sql`UPDATE chat_messages SET status = ${status}, completed_at = now()
        WHERE id = ${id} AND status IN ('queued', 'running') RETURNING *`.pipe(messageRows).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    const hasOpenTurn = (sessionId: string, statuses: ReadonlyArray<"queued" | "running">) =>
      sql`SELECT count(*)::int AS n FROM chat_messages WHERE session_id = ${sessionId} AND role = 'user'
        AND status IN ${sql.in(statuses)}`.pipe(decodeRows("chat_messages", Schema.Struct({ n: Schema.Number }))).pipe(
        Effect.map((rows) => (rows[0]?.n ?? 0) > 0),
        Effect.orDie
      )

    const oldestQueued = (sessionId: string) =>
      sql`SELECT * FROM chat_messages WHERE session_id = ${sessionId} AND role = 'user' AND status = 'queued'
        ORDER BY seq LIMIT 1`.pipe(messageRows).pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie)

    const markRunning = (id: string) =>
      sql`UPDATE chat_messages SET status = 'running' WHERE id = ${id} AND status = 'queued'`.pipe(Effect.asVoid, Effect.orDie)

    /** Turns not answered yet, and whether their session has a turn running (the run's side is the run module's). */
    const openTurns = sql`
      SELECT m.run_id, m.session_id, m.status, EXISTS (
          SELECT 1 FROM chat_messages o WHERE o.session_id = m.session_id AND o.role = 'user' AND o.status = 'running'
        ) AS session_running
      FROM chat_messages m WHERE m.role = 'user' AND m.status IN ('queued', 'running') AND m.run_id IS NOT NULL`.pipe(
      decodeRows(
        "chat_messages",
        Schema.Struct({ run_id: Schema.String, session_id: Schema.String, status: Schema.Literal("queued", "running"), session_running: Schema.Boolean })
      )
    ).pipe(
      Effect.orDie
    )

    const setFeedback = (id: string, f: { sentiment: string; category: string | null }) =>
      sql`UPDATE chat_messages SET sentiment = ${f.sentiment}, feedback_category = ${f.category}, feedback_at = now()
        WHERE id = ${id} RETURNING *`.pipe(messageRows).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    const setFeedbackText = (id: string, text: string) =>
      sql`UPDATE chat_messages SET feedback_text = ${text}, feedback_at = now()
        WHERE id = ${id} AND sentiment IS NOT NULL RETURNING *`.pipe(messageRows).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    const setFeedbackRun = (id: string, runId: string) =>
      sql`UPDATE chat_messages SET feedback_run_id = ${runId} WHERE id = ${id} RETURNING *`.pipe(messageRows).pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    return traced("MessagesRepo", {
      insertUser,
      insertAssistant,
      list,
      history,
      get,
      turnOfRun,
      finishTurn,
      hasOpenTurn,
      oldestQueued,
      markRunning,
      openTurns,
      setFeedback,
      setFeedbackText,
      setFeedbackRun
    })
  })
}) {}
