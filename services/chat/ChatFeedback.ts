import { Effect, Option } from "effect"
import type { Schema } from "effect"
import { traced } from "../../platform/Traced.js"
import type * as C from "../../schemas/Chat.js"
import { badRequest, conflict, notFound } from "../../schemas/Errors.js"
import type { ChatMessageId, WorkflowId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { AiEmployees } from "../ports/AiEmployees.js"
import { RunAccess } from "../ports/RunAccess.js"
import { Chat } from "./Chat.js"
import { type MessageRow, MessagesRepo, toMessage } from "./MessagesRepo.js"
import type { SessionRow } from "./SessionsRepo.js"

/**
 * Feedback on assistant messages. Sentiment and category overwrite what was there; a comment
 * needs a sentiment first. When the AI Employee names a `feedback_workflow_id`, every change of
 * feedback runs that workflow (trigger_type feedback) with the feedback and the message.
 */
export class ChatFeedback extends Effect.Service<ChatFeedback>()("ChatFeedback", {
  dependencies: [Chat.Default, MessagesRepo.Default],
  effect: Effect.gen(function*() {
    const chat = yield* Chat
    const messages = yield* MessagesRepo
    const workflows = yield* AiEmployees
    const runs = yield* RunAccess

    const assistantMessage = (p: Principal, id: ChatMessageId) =>
      Effect.gen(function*() {
        const row = yield* messages.get(p.tenantId, id)
        if (Option.isNone(row)) return yield* Effect.fail(notFound("Chat message"))
        const session = yield* chat.session(p, row.value.session_id)
        if (row.value.role !== "assistant") {
          return yield* badRequest("NOT_AN_ASSISTANT_MESSAGE", "Feedback is given on assistant messages")
        }
        const workflow = yield* workflows.visible(p, session.workflow_id)
        return { row: row.value, session, config: workflow.config }
      })

    /** Starts the feedback workflow; a reason instead when it cannot run (the feedback stays saved). */
    const runFeedbackWorkflow = (p: Principal, workflowId: WorkflowId | null, session: SessionRow, row: MessageRow) =>
      Effect.gen(function*() {
        if (workflowId === null) return {}
        const started = yield* runs.admitStart(p).pipe(
          Effect.zipRight(runs.start(p, workflowId, {
            sentiment: row.sentiment,
            category: row.feedback_category ?? "",
            feedback_text: row.feedback_text ?? "",
            message_id: row.id,
            message: row.content,
            session_id: session.id,
            chat_workflow_id: session.workflow_id,
            chat_run_id: row.run_id ?? ""
          }, "feedback")),
          Effect.either
        )
        if (started._tag === "Left") return { feedback_workflow_error: started.left.message }
        yield* messages.setFeedbackRun(row.id, started.right.id)
        return { run_id: started.right.id }
      })

    const result = (row: MessageRow, extra: { run_id?: string; feedback_workflow_error?: string }) => {
      const message = toMessage(row)
      return { message_id: message.id, feedback: message.feedback!, ...extra }
    }

    const rate = (p: Principal, id: ChatMessageId, body: Schema.Schema.Type<typeof C.FeedbackRequest>) =>
      Effect.gen(function*() {
        const { config, row, session } = yield* assistantMessage(p, id)
        const category = body.category ?? null
        if (category !== null && config.feedback_categories.length > 0 && !config.feedback_categories.includes(category)) {
          return yield* badRequest(
            "UNKNOWN_FEEDBACK_CATEGORY",
            `category must be one of: ${config.feedback_categories.join(", ")}`
          )
        }
        const changed = row.sentiment !== body.sentiment || row.feedback_category !== category
        const saved = yield* messages.setFeedback(row.id, { sentiment: body.sentiment, category })
        const extra = changed ? yield* runFeedbackWorkflow(p, config.feedback_workflow_id, session, saved) : {}
        const latest = changed ? yield* messages.get(p.tenantId, row.id).pipe(Effect.map(Option.getOrElse(() => saved))) : saved
        return result(latest, extra)
      })

    const comment = (p: Principal, id: ChatMessageId, body: Schema.Schema.Type<typeof C.FeedbackTextRequest>) =>
      Effect.gen(function*() {
        const { config, row, session } = yield* assistantMessage(p, id)
        const saved = yield* messages.setFeedbackText(row.id, body.feedback_text)
        if (saved === undefined) {
          return yield* conflict("FEEDBACK_SENTIMENT_REQUIRED", "Give a sentiment (POST .../feedback) before a comment")
        }
        const changed = row.feedback_text !== body.feedback_text
        const extra = changed ? yield* runFeedbackWorkflow(p, config.feedback_workflow_id, session, saved) : {}
        const latest = yield* messages.get(p.tenantId, row.id).pipe(Effect.map(Option.getOrElse(() => saved)))
        return result(latest, extra)
      })

    return traced("ChatFeedback", { rate, comment })
  })
}) {}
