import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { WorkflowEngine } from "@effect/workflow"
import { Context, Duration, Effect, Layer, Option, Schedule, Schema } from "effect"
import type { MessageAccepted } from "../../schemas/Chat.js"
import type { Principal } from "../../schemas/Principal.js"
import { DagNode } from "../../schemas/Dag.js"
import { chatReply } from "../../runtime/engine/ChatReply.js"
import { RunEvents } from "../../runtime/engine/RunEvents.js"
import { type RunEnding, RunEndHooks } from "../../runtime/engine/RunHooks.js"
import { RunWorkflow } from "../../runtime/engine/RunWorkflow.js"
import { AppConfig } from "../shared/Config.js"
import { RunsRepo } from "../workflow/RunsRepo.js"
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

/**
 * A chat session answers one message at a time. Each message is a turn with its own run; a
 * message sent while the session's previous one is still being answered is accepted at once,
 * but its run is held (queued) and started, with the conversation as it then stands, when the
 * previous run ends. The end of a run writes the assistant message and starts the next turn.
 */
export class ChatTurns extends Context.Tag("ChatTurns")<ChatTurns, {
  readonly accept: (request: TurnRequest) => Effect.Effect<MessageAccepted>
  readonly ended: (ending: RunEnding) => Effect.Effect<void>
}>() {
  static readonly layer = Layer.scoped(
    ChatTurns,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sessions = yield* SessionsRepo
      const messages = yield* MessagesRepo
      const runs = yield* RunsRepo
      const events = yield* RunEvents
      const titles = yield* Titles
      const engine = yield* WorkflowEngine.WorkflowEngine
      const execute = (runId: string) =>
        RunWorkflow.execute({ runId }, { discard: true }).pipe(Effect.provideService(WorkflowEngine.WorkflowEngine, engine))

      const lockSession = (id: string) => sql`SELECT id FROM chat_sessions WHERE id = ${id} FOR UPDATE`.pipe(Effect.orDie)

      const accept = (r: TurnRequest) =>
        Effect.gen(function*() {
          const ids = { message: randomUUID(), assistant: randomUUID(), run: randomUUID() }
          const queued = yield* sql.withTransaction(Effect.gen(function*() {
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
            yield* runs.insert(r.principal, {
              id: ids.run,
              workflow_id: r.session.workflow_id,
              workflow_name: r.workflowName,
              version: r.version,
              trigger_type: r.triggerType,
              is_dry_run: r.isDryRun,
              input_params: runInput(r.session, turn, history),
              session_id: r.session.id,
              held: busy
            })
            yield* sql`UPDATE chat_sessions SET last_activity_at = now() WHERE id = ${r.session.id}`
            return busy
          })).pipe(Effect.orDie)
          if (!queued) yield* execute(ids.run)
          return {
            message_id: ids.message as MessageAccepted["message_id"],
            assistant_message_id: ids.assistant as MessageAccepted["assistant_message_id"],
            run_id: ids.run,
            session_id: r.session.id as MessageAccepted["session_id"],
            status: queued ? "queued" as const : "running" as const
          }
        }).pipe(Effect.withSpan("ChatTurns.accept"))

      /** Starts the session's oldest queued turn when nothing else is running. */
      const dispatch = (sessionId: string) =>
        Effect.gen(function*() {
          const runId = yield* sql.withTransaction(Effect.gen(function*() {
            yield* lockSession(sessionId)
            if (yield* messages.hasOpenTurn(sessionId, ["running"])) return undefined
            const next = yield* messages.oldestQueued(sessionId)
            if (Option.isNone(next)) return undefined
            const session = yield* sessions.get(next.value.tenant_id, sessionId)
            const history = yield* messages.history(sessionId, next.value.turn_seq)
            const input = Option.isSome(session) ? runInput(session.value, next.value, history) : undefined
            yield* sql`UPDATE runs SET held = false, updated_at = now()
              ${input !== undefined ? sql`, input_params = ${JSON.stringify(input)}::jsonb` : sql``}
              WHERE id = ${next.value.run_id}`
            yield* messages.markRunning(next.value.id)
            return next.value.run_id!
          })).pipe(Effect.orDie)
          if (runId !== undefined) yield* execute(runId)
        })

      const ended = (ending: RunEnding) =>
        Effect.gen(function*() {
          const found = yield* messages.turnOfRun(ending.runId)
          if (Option.isNone(found)) return
          const turn = found.value
          const reply = ending.reply ?? { text: "", sources: [], response_buttons: [] }
          const status = ending.status === "completed" ? "completed" as const : ending.status
          const content = status === "completed" ? reply.text : status === "failed" ? FAILED_TEXT : CANCELLED_TEXT
          const session = yield* sql.withTransaction(Effect.gen(function*() {
            yield* messages.finishTurn(turn.id, status === "completed" ? "answered" : status)
            if (!turn.is_dry_run) {
              yield* messages.insertAssistant({
                id: turn.assistant_message_id!,
                session_id: turn.session_id,
                tenant_id: turn.tenant_id,
                content,
                status,
                run_id: ending.runId,
                reply_to: turn.id,
                sources: status === "completed" ? reply.sources : [],
                response_buttons: status === "completed" ? reply.response_buttons : [],
                error: status === "completed" ? null : ending.error ?? null
              })
            }
            yield* sql`UPDATE chat_sessions SET last_activity_at = now() WHERE id = ${turn.session_id}`
            return yield* sessions.get(turn.tenant_id, turn.session_id)
          })).pipe(Effect.orDie)
          yield* events.append(ending.runId, "assistant_message", {
            message_id: turn.assistant_message_id,
            reply_to: turn.id,
            session_id: turn.session_id,
            persisted: !turn.is_dry_run,
            message_status: status,
            content,
            sources: status === "completed" ? reply.sources : [],
            response_buttons: status === "completed" ? reply.response_buttons : []
          }, "assistant_message")
          yield* dispatch(turn.session_id)
          if (status === "completed" && !turn.is_dry_run && Option.isSome(session) && session.value.title_source === "empty") {
            yield* titles.request(session.value.id)
          }
        }).pipe(
          Effect.catchAllCause((cause) => Effect.logError("chat turn follow-up failed; the reconciler will retry", cause)),
          Effect.withSpan("ChatTurns.ended", { attributes: { "run.id": ending.runId, "run.status": ending.status } })
        )

      /** Turns a crash left behind: their run ended unheard, or their queue stalled. */
      const reconcile = Effect.gen(function*() {
        for (const stuck of yield* messages.stalled) {
          if (["completed", "failed", "cancelled"].includes(stuck.run_status)) {
            const [run] = yield* sql<{ error: string | null }>`SELECT error FROM runs WHERE id = ${stuck.run_id}`
            yield* ended({
              runId: stuck.run_id,
              status: stuck.run_status as RunEnding["status"],
              error: run?.error ?? null,
              ...(stuck.run_status === "completed" ? { reply: yield* recoveredReply(stuck.run_id) } : {})
            })
          } else {
            yield* dispatch(stuck.session_id)
          }
        }
      }).pipe(Effect.orDie, Effect.catchAllCause((cause) => Effect.logWarning("chat reconcile failed", cause)))

      /** The reply of a run that ended while no one was listening, rebuilt from its stored steps and outputs. */
      const recoveredReply = (runId: string) =>
        Effect.gen(function*() {
          const [run] = yield* sql<{ named_outputs: Record<string, unknown>; nodes: unknown }>`
            SELECT r.named_outputs, v.dag_definition -> 'nodes' AS nodes FROM runs r
            JOIN workflow_versions v ON v.workflow_id = r.workflow_id AND v.number = r.version WHERE r.id = ${runId}`
          const steps = yield* sql<{ node_id: string; output: unknown }>`SELECT node_id, output FROM run_steps
            WHERE run_id = ${runId} AND status = 'completed' ORDER BY finished_at, position`
          const nodes = (Array.isArray(run?.nodes) ? run.nodes : []).flatMap((n) => {
            const d = Schema.decodeUnknownEither(DagNode)(n)
            return d._tag === "Right" ? [d.right] : []
          })
          const context = {
            workflow_input: {},
            nodes: Object.fromEntries(steps.map((st) => [st.node_id, { output: st.output }])),
            run: { id: runId, trigger_type: "" }
          }
          return chatReply(nodes, steps.map((st) => st.node_id), context, run?.named_outputs ?? {})
        })

      const every = Duration.seconds((yield* AppConfig).chatReconcileSeconds)
      yield* Effect.forkScoped(reconcile.pipe(Effect.repeat(Schedule.spaced(every))))

      return { accept, ended }
    })
  )
}

/** The engine's end-of-run hook is the chat's. */
export const ChatRunHooksLive = Layer.effect(RunEndHooks, Effect.map(ChatTurns, (turns) => ({ ended: turns.ended })))
