import { Effect } from "effect"
import { LiveAgentTransferNode as TransferNodeSchema } from "../../schemas/Dag.js"
import { isRecord } from "../../schemas/Records.js"
import { error } from "../dag/Findings.js"
import { renderDeep } from "../dag/Render.js"
import { defineNode, done } from "./NodeType.js"
import { TicketDesk } from "./TicketDesk.js"

/** The conversation so far, as lines: the chat history and the message that led here. */
const transcriptOf = (chat: { readonly message?: string; readonly history?: ReadonlyArray<unknown> } | undefined) => [
  ...(chat?.history ?? []).flatMap((m) =>
    isRecord(m) && typeof m.content === "string" ? [`${m.role === "assistant" ? "AI Employee" : "Customer"}: ${m.content}`] : []
  ),
  ...(chat?.message !== undefined ? [`Customer: ${chat.message}`] : [])
]

/**
 * live_agent_transfer: raises a ticket on the group's queue with the summary and the conversation,
 * as the run's starter; the ticket is the step's output, and chat marks the session
 * `transferred` when the run ends. A dry run raises nothing.
 */
export const LiveAgentTransferNode = defineNode({
  type: "live_agent_transfer",
  schema: TransferNodeSchema,
  failures: { HANDOVER_FAILED: "dependency" },
  refs: (node) => ({ groupIds: [node.live_agent_transfer_config.group_id] }),
  check: (node, { facts }) =>
    !facts.groupIds.has(node.live_agent_transfer_config.group_id)
      ? [error("TRANSFER_GROUP_NOT_FOUND", `'${node.id}' transfers to a group that does not exist`, node.id)]
      : !facts.queueGroupIds.has(node.live_agent_transfer_config.group_id)
      ? [error("TRANSFER_GROUP_NO_QUEUE", `'${node.id}' transfers to a group that has no ticket queue`, node.id)]
      : [],
  make: (fail) =>
    Effect.map(TicketDesk, (desk) => ({
      execute: (execution, node) =>
        Effect.gen(function*() {
          const config = node.live_agent_transfer_config
          const summary = String(renderDeep(config.summary, execution.context) ?? "")
          if (execution.isDryRun) return done({ output: { group_id: config.group_id, transferred: false, status: "dry_run" }, usage: {} })
          const transcript = transcriptOf(execution.context.chat)
          const ticket = yield* desk.raise({
            tenantId: execution.tenantId,
            groupId: config.group_id,
            key: `transfer:${execution.runId}:${execution.node.id}`,
            title: summary.split("\n")[0].slice(0, 200) || `Conversation handed over by ${execution.workflowId}`,
            description: `${summary}${transcript.length > 0 ? `\n\nConversation:\n${transcript.join("\n")}` : ""}`,
            requesterId: execution.startedBy
          }).pipe(Effect.mapError((e) => fail("HANDOVER_FAILED", `The conversation could not be handed over: ${e.message}`)))
          return done({
            output: { transferred: true, group_id: config.group_id, ticket_id: ticket.id, ticket_number: ticket.number, group_tag: ticket.groupTag },
            usage: {}
          })
        })
    }))
})
