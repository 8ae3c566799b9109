import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { traced } from "../../../platform/Traced.js"
import { RunModule } from "../../../runtime/run/RunModule.js"
import { requireReader } from "../../../schemas/Authorization.js"
import { badRequest, conflict, notFound } from "../../../schemas/Errors.js"
import type { NudgeId, WorkflowId } from "../../../schemas/Ids.js"
import type { Nudge } from "../../../schemas/Nudge.js"
import type { Principal } from "../../../schemas/Principal.js"
import { isAtLeast, Roles } from "../../../schemas/Roles.js"
import { People } from "../../ports/People.js"
import { type CardRow, cardRows, toCard } from "./NudgeStore.js"

/** Reminders re-surface a card on their cadence: how many are due by `now`, and when the next one is. */
const remindersOf = (row: CardRow, now: number) => {
  if (row.reminder_every_seconds === null || row.reminder_every_seconds <= 0) return undefined
  const every = row.reminder_every_seconds * 1000
  const due = Math.floor((now - row.created_at.getTime()) / every)
  const sent = row.reminder_max === null ? due : Math.min(due, row.reminder_max)
  const more = row.status === "open" && (row.reminder_max === null || sent < row.reminder_max)
  return {
    every_seconds: row.reminder_every_seconds,
    max: row.reminder_max,
    sent,
    next_at: more ? new Date(row.created_at.getTime() + (sent + 1) * every) : null
  }
}

const toNudge = (row: CardRow): Nudge => {
  const reminders = remindersOf(row, Date.now())
  return {
    id: row.id,
    run_id: row.run_id,
    workflow_id: row.workflow_id as WorkflowId,
    node_id: row.node_id,
    card_ref: row.card_ref,
    mode: row.mode,
    title: row.title,
    body: row.body,
    actions: row.actions,
    // An open card past its expiry reads as expired (a parked run learns it from its timer).
    status: row.status === "open" && row.expires_at !== null && row.expires_at.getTime() <= Date.now() ? "expired" : row.status,
    ...(row.status === "responded" ? { response: row.response } : {}),
    ...(row.responded_at !== null ? { responded_at: row.responded_at } : {}),
    expires_at: row.expires_at,
    ...(reminders !== undefined ? { reminders } : {}),
    ...(row.triggered_run_id !== null ? { triggered_run_id: row.triggered_run_id } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at
  }
}

/**
 * Nudge cards for the people they are addressed to: the caller's open cards, and answers that
 * resume a parked run or start the collecting AI Employee.
 */
export class Nudges extends Effect.Service<Nudges>()("Nudges", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const people = yield* People
    const modules = yield* RunModule

    /** Cards addressed to the caller: by email, by a role at or below theirs, by a group of theirs, or to them as the run's starter. */
    const addressedTo = (principal: Principal) =>
      Effect.map(people.groupsOf(principal), (groups) => {
        const roles = Roles.filter((r) => isAtLeast(principal.role, r))
        return sql`(lower(c.recipient->>'user_email') = lower(${principal.email})
          OR c.recipient->>'user_id' = ${principal.userId}
          OR c.recipient->>'role' IN ${sql.in(roles)}
          ${groups.length > 0 ? sql`OR c.recipient->>'group_id' IN ${sql.in([...groups])}` : sql``})`
      })

    const openCard = sql`c.status = 'open' AND (c.expires_at IS NULL OR c.expires_at > now())
      AND (c.mode <> 'park' OR r.status = 'paused')`

    const list = (principal: Principal) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const mine = yield* addressedTo(principal)
        const rows = yield* sql`SELECT c.* FROM nudge_cards c JOIN runs r ON r.id = c.run_id
          WHERE c.tenant_id = ${principal.tenantId} AND ${openCard} AND ${mine}
          ORDER BY c.created_at DESC, c.id LIMIT 200`.pipe(cardRows, Effect.orDie)
        return { items: rows.map(toNudge) }
      })

    const respond = (principal: Principal, id: NudgeId, value: unknown) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        const mine = yield* addressedTo(principal)
        const [card] = yield* sql`SELECT c.* FROM nudge_cards c WHERE c.tenant_id = ${principal.tenantId} AND c.id = ${id} AND ${mine}`.pipe(
          cardRows,
          Effect.orDie
        )
        if (card === undefined) return yield* notFound("Nudge")
        if (card.actions.length > 0 && !card.actions.some((a) => a.value === value)) {
          return yield* badRequest("INVALID_NUDGE_RESPONSE", `Answer with one of: ${card.actions.map((a) => a.value).join(", ")}`)
        }
        const closed = conflict("NUDGE_CLOSED", "This card was already answered, closed or expired")
        const answered = yield* sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql`UPDATE nudge_cards c SET status = 'responded', response = ${JSON.stringify(value ?? null)}::jsonb,
            responded_by = ${principal.userId}, responded_at = now(), updated_at = now()
            FROM runs r WHERE r.id = c.run_id AND c.id = ${id} AND ${openCard} RETURNING c.*`.pipe(cardRows, Effect.orDie)
          if (row === undefined) return yield* closed
          if (row.mode === "park") yield* modules.resolveWait(row.run_id, row.node_id, { card: toCard(row) })
          if (row.mode !== "collect" || row.trigger_workflow_id === null) return { row, start: undefined }
          const run = yield* modules.create({
            tenantId: principal.tenantId,
            workflowId: row.trigger_workflow_id,
            triggerType: principal.authMethod === "api_key" ? "api" : "ui",
            createdBy: principal.userId,
            isDryRun: false,
            input: { nudge: { card_id: row.id, card_ref: row.card_ref, value: value ?? null, responded_by: principal.email, source_run_id: row.run_id } }
          })
          const [linked] = yield* sql`UPDATE nudge_cards SET triggered_run_id = ${run.id} WHERE id = ${row.id} RETURNING *`.pipe(cardRows, Effect.orDie)
          return { row: linked, start: run.id }
        })).pipe(Effect.catchTag("SqlError", Effect.die))
        if (answered.row.mode === "park") yield* modules.wake(answered.row.run_id)
        if (answered.start !== undefined) yield* modules.launch(answered.start)
        return toNudge(answered.row)
      })

    return traced("Nudges", { list, respond })
  })
}) {}
