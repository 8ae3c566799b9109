import { Effect, Option, Schema } from "effect"
import { type DagWarning, NotifyUserNode as NotifyUserNodeSchema } from "../../schemas/Dag.js"
import { isRecord } from "../../schemas/Records.js"
import type { NodeCheckContext } from "../dag/DagFacts.js"
import { error, warning } from "../dag/Findings.js"
import { reachableFrom } from "../dag/Graph.js"
import { renderDeep } from "../dag/Render.js"
import type { NodeExecution } from "./NodeType.js"
import { defineNode, done, waitFor } from "./NodeType.js"
import { type Card, NudgeCards } from "./NudgeCards.js"

type NotifyUserNode = typeof NotifyUserNodeSchema.Type
type Config = NotifyUserNode["notify_user_config"]
const isNotifyUserNode = Schema.is(NotifyUserNodeSchema)

const configOf = (execution: NodeExecution, node: NotifyUserNode) => {
  const raw = node.notify_user_config
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

/** Park needs an expiry and something after it that reads the answer; collect needs a way to end. */
const check = (node: NotifyUserNode, { graph, nodes, rereadsContext }: NodeCheckContext): ReadonlyArray<DagWarning> => {
  const c = node.notify_user_config
  const downstream = [...reachableFrom(graph, node.id)]
  if (c.mode === "park") {
    return [
      ...(c.expires_after_seconds === undefined || c.expires_after_seconds <= 0
        ? [error("NUDGE_PARK_REQUIRES_EXPIRY", `Park-mode nudge '${node.id}' needs a positive expires_after_seconds`, node.id)]
        : []),
      ...(downstream.some(rereadsContext) ? [] : [warning(
        "NUDGE_PARK_NO_DOWNSTREAM_REREAD",
        `Nothing after park-mode nudge '${node.id}' reads the response; the run resumes on pre-park values`,
        node.id
      )])
    ]
  }
  if (c.trigger_workflow_id === undefined || c.expires_after_seconds !== undefined || c.reminders !== undefined) return []
  const closes = downstream.some((id) => {
    const n = nodes.get(id)
    return n !== undefined && isNotifyUserNode(n) && n.notify_user_config.operation === "close"
  })
  return closes ? [] : [warning(
    "NUDGE_COLLECT_NEVER_ENDS",
    `Collect-mode nudge '${node.id}' has no expiry, no reminders cadence and no close node downstream`,
    node.id
  )]
}

/**
 * notify_user: sends, updates or closes a nudge card. `park` pauses the run until the card is
 * answered or `expires_after_seconds` passes (a durable wait: it survives restarts), and goes on
 * with the answer or `status: expired`; `collect` leaves the answer to `trigger_workflow_id`;
 * `notify` only shows the card. A dry run shows nothing and does not wait.
 */
export const NotifyUserNode = defineNode({
  type: "notify_user",
  schema: NotifyUserNodeSchema,
  failures: { CARD_NOT_SENT: "configuration", ANSWER_MISSING: "dependency" },
  check,
  make: (fail) =>
    Effect.map(NudgeCards, (cards) => ({
      execute: (execution, node) =>
        Effect.gen(function*() {
          const c = configOf(execution, node)
          if (execution.isDryRun) return done({ output: { card_ref: c.cardRef, operation: c.operation, status: "dry_run" }, usage: {} })
          const content = { title: c.title, body: c.body, actions: c.actions }
          if (c.operation !== "send") {
            const changed = c.operation === "update"
              ? yield* cards.update(execution.runId, c.cardRef, content)
              : yield* cards.close(execution.runId, c.cardRef, "closed")
            if (Option.isNone(changed)) {
              return yield* fail("CARD_NOT_SENT", `No nudge card '${c.cardRef}' was sent in this run to ${c.operation}`)
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
      resume: (execution, node, resolution) =>
        Effect.gen(function*() {
          const c = configOf(execution, node)
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
            return yield* fail("ANSWER_MISSING", "The nudge wait was resolved without an answer")
          }
          return done({ output: { ...answered(resolution.card as unknown as Card), card_ref: c.cardRef }, usage: {} })
        })
    }))
})
