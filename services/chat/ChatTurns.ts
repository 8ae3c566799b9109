import { SqlClient } from "@effect/sql"
import { Context, Duration, Effect, Layer, Option, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../platform/Config.js"
import { uuidV7 } from "../../platform/TimedId.js"
import { type EndFollowUp, noFollowUp, RunEndHooks, type RunEnding } from "../../runtime/run/RunEndHooks.js"
import { RunModule, type RunOutcome } from "../../runtime/run/RunModule.js"
import type { MessageAccepted } from "../../schemas/Chat.js"
import type { BadRequest, Conflict } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { type ChatReply, chatReply } from "./ChatReply.js"
import { type MessageRow, MessagesRepo } from "./MessagesRepo.js"
import { type SessionRow, SessionsRepo } from "./SessionsRepo.js"
import { Titles } from "./Titles.js"

export interface TurnRequest {
  /** Who the run is recorded for. */
  readonly principal: Principal
  readonly session: SessionRow
  readonly workflowName: string
  readonly version: number
  readonly content: string
  readonly isDryRun: boolean
  /** Already tokenized. */
  readonly userContext: Record<string, unknown> | null
  readonly triggerType: "ui" | "api"
}

export const FAILED_TEXT = "Sorry, I could not answer this message because something went wrong. Please try again."
export const CANCELLED_TEXT = "This message was cancelled before it was answered."

/** The run input of a chat turn: the session's form values, the message and the conversation so far. */
const runInput = (session: SessionRow, turn: MessageRow, history: ReadonlyArray<{ role: string; content: string }>) => ({
  ...session.input_params,
  message: turn.content,
  chat: { message: turn.content, history },
  ...(turn.user_context !== null ? { user_context: turn.user_context } : {})
})

const EMPTY_REPLY: ChatReply = { text: "", sources: [], response_buttons: [] }

/**
 * A chat session answers one message at a time. Each message is a turn with its own run; a
 * message sent while the session's previous one is still being answered is accepted at once,
 * but its run is held (queued) and released, with the conversation as it then stands, when the
 * previous run ends. The end of a run writes the assistant message (in the run's end commit)
 * and releases the next turn.
 */
export class ChatTurns extends Context.Tag("ChatTurns")<ChatTurns, {
  /** Accepts a message in the caller's transaction; `launch` the run once it commits (unless queued). */
  readonly accept: (request: TurnRequest) => Effect.Effect<MessageAccepted, Conflict | BadRequest>
  readonly ended: (ending: RunEnding) => Effect.Effect<EndFollowUp>
}>() {
  static readonly layer = Layer.scoped(
    ChatTurns,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sessions = yield* SessionsRepo
      const messages = yield* MessagesRepo
      const titles = yield* Titles
      const modules = yield* RunModule

      const lockSession = (id: string) => sql`SELECT id FROM chat_sessions WHERE id = ${id} FOR UPDATE`.pipe(Effect.orDie)

      const accept = (r: TurnRequest) =>
        sql.withTransaction(Effect.gen(function*() {
          // A run's id carries its time: the run tables are partitioned by day on it (platform/TimedId.ts).
          const ids = { message: randomUUID(), assistant: randomUUID(), run: uuidV7() }
          yield* lockSession(r.session.id)
          const busy = yield* messages.hasOpenTurn(r.session.id, ["queued", "running"])
          const turn = yield* messages.insertUser({
            id: ids.message,
            session_id: r.session.id,
            tenant_id: r.session.tenant_id,
            content: r.content,
            status: busy ? "queued" : "running",
            run_id: ids.run,
            assistant_message_id: ids.assistant,
            is_dry_run: r.isDryRun,
            user_context: r.userContext
          })
          const history = busy ? [] : yield* messages.history(r.session.id, turn.turn_seq)
          yield* modules.create({
            id: ids.run,
            tenantId: r.session.tenant_id,
            workflowId: r.session.workflow_id,
            version: { number: r.version, name: r.workflowName },
            triggerType: r.triggerType,
            createdBy: r.principal.userId,
            apiKeyId: r.principal.apiKeyId ?? null,
            isDryRun: r.isDryRun,
            input: runInput(r.session, turn, history),
            checkedInput: { ...r.session.input_params, message: r.content },
            sessionId: r.session.id,
            held: busy
          })
          yield* sql`UPDATE chat_sessions SET last_activity_at = now() WHERE id = ${r.session.id}`
          return {
            message_id: ids.message as MessageAccepted["message_id"],
            assistant_message_id: ids.assistant as MessageAccepted["assistant_message_id"],
            run_id: ids.run,
            session_id: r.session.id as MessageAccepted["session_id"],
            status: busy ? "queued" as const : "running" as const
          }
        })).pipe(
          Effect.catchTag("SqlError", (e) => Effect.die(e)),
          Effect.withSpan("ChatTurns.accept")
        )

      /** In the caller's transaction: releases the session's oldest queued turn when nothing else runs; returns its run. */
      const releaseNext = (sessionId: string) =>
        Effect.gen(function*() {
          yield* lockSession(sessionId)
          if (yield* messages.hasOpenTurn(sessionId, ["running"])) return undefined
          const next = yield* messages.oldestQueued(sessionId)
          if (Option.isNone(next)) return undefined
          const session = yield* sessions.get(next.value.tenant_id, sessionId)
          const history = yield* messages.history(sessionId, next.value.turn_seq)
          yield* modules.release(next.value.run_id!, Option.isSome(session) ? runInput(session.value, next.value, history) : undefined)
          yield* messages.markRunning(next.value.id)
          return next.value.run_id!
        }).pipe(Effect.orDie)

      const dispatch = (sessionId: string) =>
        sql.withTransaction(releaseNext(sessionId)).pipe(
          Effect.orDie,
          Effect.flatMap((runId) => runId === undefined ? Effect.void : modules.launch(runId))
        )

      /** Writes a turn's answer; returns the assistant_message event and the session. */
      const answer = (turn: MessageRow, status: RunEnding["status"], reply: ChatReply, error: string | null) =>
        Effect.gen(function*() {
          const content = status === "completed" ? reply.text : status === "failed" ? FAILED_TEXT : CANCELLED_TEXT
          yield* messages.finishTurn(turn.id, status === "completed" ? "answered" : status)
          if (!turn.is_dry_run) {
            yield* messages.insertAssistant({
              id: turn.assistant_message_id!,
              session_id: turn.session_id,
              tenant_id: turn.tenant_id,
              content,
              status,
              run_id: turn.run_id!,
              reply_to: turn.id,
              sources: status === "completed" ? reply.sources : [],
              response_buttons: status === "completed" ? reply.response_buttons : [],
              error: status === "completed" ? null : error
            })
          }
          yield* sql`UPDATE chat_sessions SET last_activity_at = now() WHERE id = ${turn.session_id}`
          const event = {
            type: "assistant_message" as const,
            key: "assistant_message",
            payload: {
              message_id: turn.assistant_message_id,
              reply_to: turn.id,
              session_id: turn.session_id,
              persisted: !turn.is_dry_run,
              message_status: status,
              content,
              sources: status === "completed" ? reply.sources : [],
              response_buttons: status === "completed" ? reply.response_buttons : []
            }
          }
          return { event, session: yield* sessions.get(turn.tenant_id, turn.session_id) }
        }).pipe(Effect.orDie)

      const titleIfNew = (session: Option.Option<SessionRow>, status: RunEnding["status"], turn: MessageRow) =>
        status === "completed" && !turn.is_dry_run && Option.isSome(session) && session.value.title_source === "empty"
          ? titles.request(session.value.id)
          : Effect.void

      /** Inside the run's end commit: the answer, the next turn released; after it, the next run started and a title asked for. */
      const ended = (ending: RunEnding) =>
        Effect.gen(function*() {
          const found = yield* messages.turnOfRun(ending.run.id)
          if (Option.isNone(found)) return noFollowUp
          const turn = found.value
          const reply = ending.status === "completed"
            ? chatReply(ending.nodes, ending.completionOrder, ending.context, ending.namedOutputs)
            : EMPTY_REPLY
          const { event, session } = yield* answer(turn, ending.status, reply, ending.error)
          // A live_agent_transfer step handed the conversation to people: the AI Employee answers no more.
          const transferred = ending.status === "completed" && !turn.is_dry_run &&
            ending.nodes.some((n) => n.type === "live_agent_transfer" && ending.completionOrder.includes(n.id))
          if (transferred) yield* sql`UPDATE chat_sessions SET status = 'transferred' WHERE id = ${turn.session_id}`.pipe(Effect.orDie)
          const next = yield* releaseNext(turn.session_id)
          return {
            events: [event],
            afterCommit: Effect.all([
              next === undefined ? Effect.void : modules.launch(next),
              titleIfNew(session, ending.status, turn)
            ], { discard: true })
          } satisfies EndFollowUp
        }).pipe(Effect.withSpan("ChatTurns.ended", { attributes: { "run.id": ending.run.id, "run.status": ending.status } }))

      /** Turns a failure left behind: their run ended but the answer was not written, or their queue stalled. */
      const reconcile = Effect.gen(function*() {
        const open = yield* messages.openTurns
        const statuses = yield* modules.statuses(open.map((t) => t.run_id))
        // Turns whose run ended without the turn hearing of it (a crash in between), and queues that stalled.
        const stalled = open.flatMap((t) => {
          const runStatus = statuses.get(t.run_id)
          if (runStatus === undefined) return []
          const ended = runStatus === "completed" || runStatus === "failed" || runStatus === "cancelled"
          return ended || (t.status === "queued" && !t.session_running) ? [{ ...t, run_status: runStatus }] : []
        })
        for (const stuck of stalled) {
          if (!["completed", "failed", "cancelled"].includes(stuck.run_status)) {
            yield* dispatch(stuck.session_id)
            continue
          }
          const found = yield* messages.turnOfRun(stuck.run_id)
          if (Option.isNone(found)) continue
          const status = stuck.run_status as RunEnding["status"]
          const outcome = Option.getOrUndefined(yield* modules.outcome(stuck.run_id))
          const reply = status === "completed" && outcome !== undefined ? recoveredReply(stuck.run_id, outcome) : EMPTY_REPLY
          const { session } = yield* sql.withTransaction(answer(found.value, status, reply, outcome?.error ?? null))
          yield* dispatch(stuck.session_id)
          yield* titleIfNew(session, status, found.value)
        }
      }).pipe(Effect.orDie, Effect.catchAllCause((cause) => Effect.logWarning("chat reconcile failed", cause)))

      /** The reply of a run that ended while its answer could not be written, rebuilt from its stored steps and outputs. */
      const recoveredReply = (runId: string, outcome: RunOutcome) => {
        const steps = outcome.completedSteps
        const context = {
          workflow_input: {},
          nodes: Object.fromEntries(steps.map((st) => [st.node_id, { output: st.output }])),
          run: { id: runId, trigger_type: "" }
        }
        return chatReply(outcome.nodes, steps.map((st) => st.node_id), context, outcome.namedOutputs)
      }

      const every = Duration.seconds((yield* AppConfig).chatReconcileSeconds)
      yield* Effect.forkScoped(reconcile.pipe(Effect.repeat(Schedule.spaced(every))))

      return { accept, ended }
    })
  )
}

/** The kernel's end-of-run hook is the chat's. */
export const ChatRunHooksLive = Layer.effect(RunEndHooks, Effect.map(ChatTurns, (turns) => ({ ended: turns.ended })))
