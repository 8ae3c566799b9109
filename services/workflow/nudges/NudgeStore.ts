import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { derivedUuid } from "../../../platform/DerivedId.js"
import { decodeRows, JsonArrayOf, JsonObjectOf, Timestamp } from "../../../platform/Rows.js"
import { type Card, NudgeCards } from "../../../runtime/nodes/NudgeCards.js"
import { NudgeId } from "../../../schemas/Ids.js"
import { NudgeStatus } from "../../../schemas/Nudge.js"

export const CardRow = Schema.Struct({
  id: NudgeId,
  tenant_id: Schema.String,
  run_id: Schema.String,
  workflow_id: Schema.String,
  node_id: Schema.String,
  card_ref: Schema.String,
  mode: Schema.Literal("park", "collect", "notify"),
  recipient: JsonObjectOf<{ user_email?: string; role?: string; group_id?: string; user_id?: string }>(),
  title: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String),
  actions: JsonArrayOf<{ label: string; value: string }>(),
  trigger_workflow_id: Schema.NullOr(Schema.String),
  status: NudgeStatus,
  response: Schema.Unknown,
  responded_by: Schema.NullOr(Schema.String),
  responded_at: Schema.NullOr(Timestamp),
  triggered_run_id: Schema.NullOr(Schema.String),
  expires_at: Schema.NullOr(Timestamp),
  reminder_every_seconds: Schema.NullOr(Schema.Number),
  reminder_max: Schema.NullOr(Schema.Number),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type CardRow = typeof CardRow.Type
export const cardRows = decodeRows("nudge_cards", CardRow)

/** The card as the node sees it, with its answer. */
export const toCard = (row: CardRow): Card => ({
  id: row.id,
  status: row.status,
  ...(row.status === "responded"
    ? { response: { value: row.response, responded_by: row.responded_by ?? "", responded_at: row.responded_at?.toISOString() ?? "" } }
    : {})
})

/** The nudge_cards table, written by notify_user nodes through the `NudgeCards` port. */
export const NudgeCardsLive = Layer.effect(
  NudgeCards,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const current = (runId: string, cardRef: string) =>
      sql`SELECT * FROM nudge_cards WHERE run_id = ${runId} AND card_ref = ${cardRef}`.pipe(cardRows, Effect.map((rows) => Option.fromNullable(rows[0])))

    return {
      send: (spec) =>
        Effect.gen(function*() {
          // Without a recipient the card goes to whoever started the run (builders when nobody did).
          const [run] = yield* sql`SELECT created_by FROM runs WHERE id = ${spec.runId}`.pipe(
            decodeRows("runs", Schema.Struct({ created_by: Schema.NullOr(Schema.String) }))
          )
          const recipient = spec.recipient ?? (run?.created_by != null ? { user_id: run.created_by } : { role: "builder" })
          const [row] = yield* sql`INSERT INTO nudge_cards ${
            sql.insert({
              id: derivedUuid(`nudge:${spec.runId}:${spec.cardRef}`),
              tenant_id: spec.tenantId,
              run_id: spec.runId,
              workflow_id: spec.workflowId,
              node_id: spec.nodeId,
              card_ref: spec.cardRef,
              mode: spec.mode,
              recipient: JSON.stringify(recipient),
              title: spec.title ?? null,
              body: spec.body ?? null,
              actions: JSON.stringify(spec.actions ?? []),
              trigger_workflow_id: spec.triggerWorkflowId ?? null,
              expires_at: spec.expiresAt ?? null,
              reminder_every_seconds: spec.reminders?.every_seconds ?? null,
              reminder_max: spec.reminders?.max ?? null
            })
          } ON CONFLICT (run_id, card_ref) DO UPDATE SET node_id = EXCLUDED.node_id, mode = EXCLUDED.mode, recipient = EXCLUDED.recipient,
            title = EXCLUDED.title, body = EXCLUDED.body, actions = EXCLUDED.actions, trigger_workflow_id = EXCLUDED.trigger_workflow_id,
            expires_at = COALESCE(nudge_cards.expires_at, EXCLUDED.expires_at), reminder_every_seconds = EXCLUDED.reminder_every_seconds,
            reminder_max = EXCLUDED.reminder_max, updated_at = now()
          RETURNING *`.pipe(cardRows)
          return toCard(row)
        }).pipe(Effect.orDie),
      update: (runId, cardRef, content) =>
        sql`UPDATE nudge_cards SET title = COALESCE(${content.title ?? null}, title), body = COALESCE(${content.body ?? null}, body),
          actions = COALESCE(${content.actions === undefined ? null : JSON.stringify(content.actions)}::jsonb, actions), updated_at = now()
          WHERE run_id = ${runId} AND card_ref = ${cardRef} RETURNING *`.pipe(
          cardRows,
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toCard)),
          Effect.orDie
        ),
      close: (runId, cardRef, status) =>
        Effect.gen(function*() {
          yield* sql`UPDATE nudge_cards SET status = ${status}, updated_at = now()
            WHERE run_id = ${runId} AND card_ref = ${cardRef} AND status = 'open'`
          return Option.map(yield* current(runId, cardRef), toCard)
        }).pipe(Effect.orDie)
    }
  })
)
