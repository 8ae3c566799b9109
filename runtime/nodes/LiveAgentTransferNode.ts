import { Effect } from "effect"
import type { LiveAgentTransferNode as TransferNodeSchema } from "../../schemas/Dag.js"
import { isRecord } from "../../schemas/Records.js"
import { renderDeep } from "../dag/Render.js"
import { defineNode, done, NodeFailure } from "./NodeType.js"
import { TicketDesk } from "./TicketDesk.js"

type TransferNode = typeof TransferNodeSchema.Type

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
export const LiveAgentTransferNode = defineNode(
  "live_agent_transfer",
  Effect.map(TicketDesk, (desk) => ({
    execute: (execution) =>
      Effect.gen(function*() {
        const config = (execution.node as TransferNode).live_agent_transfer_config
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
        }).pipe(Effect.mapError((e) => new NodeFailure({ kind: "dependency", message: `The conversation could not be handed over: ${e.message}` })))
        return done({
          output: { transferred: true, group_id: config.group_id, ticket_id: ticket.id, ticket_number: ticket.number, group_tag: ticket.groupTag },
          usage: {}
        })
      })
  }))
)
