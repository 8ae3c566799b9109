import { Effect, Option } from "effect"
import type { NotifyUserNode as NotifyUserNodeSchema } from "../../schemas/Dag.js"
import { isRecord } from "../../schemas/Records.js"
import { renderDeep } from "../dag/Render.js"
import type { NodeExecution } from "./NodeType.js"
import { defineNode, done, NodeFailure, waitFor } from "./NodeType.js"
import { type Card, NudgeCards } from "./NudgeCards.js"

type Config = typeof NotifyUserNodeSchema.Type["notify_user_config"]

const configOf = (execution: NodeExecution) => {
  const raw = (execution.node as typeof NotifyUserNodeSchema.Type).notify_user_config
  const rendered = renderDeep(raw, execution.context) as Config
  return { ...rendered, cardRef: rendered.card_ref ?? execution.node.id }
}

const answered = (card: Card) => ({
  card_id: card.id,
  status: "responded",
  response: card.response?.value,
  responded_by: card.response?.responded_by,
  responded_at: card.response?.responded_at
})

/**
 * notify_user: sends, updates or closes a nudge card. `park` pauses the run until the card is
 * answered or `expires_after_seconds` passes (a durable wait: it survives restarts), and goes on
 * with the answer or `status: expired`; `collect` leaves the answer to `trigger_workflow_id`;
 * `notify` only shows the card. A dry run shows nothing and does not wait.
 */
export const NotifyUserNode = defineNode(
  "notify_user",
  Effect.map(NudgeCards, (cards) => ({
    execute: (execution) =>
      Effect.gen(function*() {
        const c = configOf(execution)
        if (execution.isDryRun) return done({ output: { card_ref: c.cardRef, operation: c.operation, status: "dry_run" }, usage: {} })
        const content = { title: c.title, body: c.body, actions: c.actions }
        if (c.operation !== "send") {
          const changed = c.operation === "update"
            ? yield* cards.update(execution.runId, c.cardRef, content)
            : yield* cards.close(execution.runId, c.cardRef, "closed")
          if (Option.isNone(changed)) {
            return yield* new NodeFailure({ kind: "configuration", message: `No nudge card '${c.cardRef}' was sent in this run to ${c.operation}` })
          }
          return done({ output: { card_id: changed.value.id, card_ref: c.cardRef, status: changed.value.status }, usage: {} })
        }
        const expiresAt = c.expires_after_seconds !== undefined && c.expires_after_seconds > 0
          ? new Date(Date.now() + c.expires_after_seconds * 1000)
          : undefined
        const card = yield* cards.send({
          ...content,
          runId: execution.runId,
          tenantId: execution.tenantId,
          workflowId: execution.workflowId,
          nodeId: execution.node.id,
          cardRef: c.cardRef,
          mode: c.mode,
          recipient: c.recipient,
          triggerWorkflowId: c.trigger_workflow_id,
          expiresAt,
          reminders: c.reminders
        })
        if (c.mode !== "park") return done({ output: { card_id: card.id, card_ref: c.cardRef, status: card.status }, usage: {} })
        if (card.status === "responded") return done({ output: answered(card), usage: {} })
        return waitFor({ kind: "external", key: card.id, deadline: expiresAt, pauses: true })
      }),
    resume: (execution, resolution) =>
      Effect.gen(function*() {
        const c = configOf(execution)
        if (isRecord(resolution) && resolution.timeout === true) {
          const expired = yield* cards.close(execution.runId, c.cardRef, "expired")
          return done({
            output: {
              card_id: Option.getOrUndefined(Option.map(expired, (card) => card.id)),
              card_ref: c.cardRef,
              status: "expired",
              expired_at: new Date().toISOString()
            },
            usage: {}
          })
        }
        if (!isRecord(resolution) || !isRecord(resolution.card)) {
          return yield* new NodeFailure({ kind: "dependency", message: "The nudge wait was resolved without an answer" })
        }
        return done({ output: { ...answered(resolution.card as unknown as Card), card_ref: c.cardRef }, usage: {} })
      })
  }))
)
