import { Effect, Option } from "effect"
import type { Schema } from "effect"
import { Audit } from "../../platform/Audit.js"
import { traced } from "../../platform/Traced.js"
import { checkJsonSchema } from "../../runtime/dag/JsonSchema.js"
import { requireReader } from "../../schemas/Authorization.js"
import type * as C from "../../schemas/Chat.js"
import { badRequest, notFound, unprocessable } from "../../schemas/Errors.js"
import type { ChatSessionId, WorkflowId } from "../../schemas/Ids.js"
import { pageOf, pageOffset } from "../../schemas/Pagination.js"
import type { Principal } from "../../schemas/Principal.js"
import { AiEmployees } from "../ports/AiEmployees.js"
import { People } from "../ports/People.js"
import { RunAccess } from "../ports/RunAccess.js"
import { mayFollow, ownedSession, requireImpersonationFlag, requireImpersonator, requireWidgetReach } from "./ChatPolicy.js"
import { MessagesRepo, toMessage } from "./MessagesRepo.js"
import { PiiVault } from "./PiiVault.js"
import { SessionsRepo, toSession } from "./SessionsRepo.js"
import { TurnIntake } from "./TurnIntake.js"

type SendMessage = Schema.Schema.Type<typeof C.SendMessageRequest>

/** Chat sessions and messages for signed-in users (external channels: ExternalChat). */
export class Chat extends Effect.Service<Chat>()("Chat", {
  dependencies: [MessagesRepo.Default, PiiVault.Default, SessionsRepo.Default, TurnIntake.Default],
  effect: Effect.gen(function*() {
    const sessions = yield* SessionsRepo
    const messages = yield* MessagesRepo
    const workflows = yield* AiEmployees
    const runs = yield* RunAccess
    const users = yield* People
    const intake = yield* TurnIntake
    const vault = yield* PiiVault
    const audit = yield* Audit

    const session = (p: Principal, id: string) =>
      requireReader(p).pipe(Effect.zipRight(sessions.get(p.tenantId, id)), Effect.flatMap((s) => ownedSession(p, s)))

    /** A chat AI Employee the caller can see; its form values checked against the input schema when published. */
    const chatWorkflow = (p: Principal, workflowId: WorkflowId) =>
      Effect.gen(function*() {
        yield* requireReader(p)
        const w = yield* workflows.visible(p, workflowId)
        if (w.interaction_type !== "chat") {
          return yield* unprocessable("NOT_A_CHAT_AI_EMPLOYEE", `This AI Employee's interaction_type is ${w.interaction_type}, not chat`)
        }
        return w
      })

    const createSession = (p: Principal, body: Schema.Schema.Type<typeof C.CreateSessionRequest>) =>
      Effect.gen(function*() {
        const w = yield* chatWorkflow(p, body.workflow_id)
        const input = body.input_params ?? {}
        if (w.active_version !== null) {
          const schema = yield* workflows.inputSchema(p, w.id, w.active_version)
          const problems = schema === undefined || schema === null ? [] : checkJsonSchema(schema, { message: "", ...input })
          if (problems.length > 0) {
            return yield* badRequest(
              "INVALID_INPUT",
              `input_params do not match the input schema: ${problems.map((x) => `${x.path || "/"} ${x.message}`).join("; ")}`,
              problems
            )
          }
        }
        const row = yield* sessions.insert({ tenant_id: p.tenantId, workflow_id: w.id, user_id: p.userId, input_params: input, channel: "web" })
        return toSession(row)
      })

    const listSessions = (p: Principal, params: Schema.Schema.Type<typeof C.SessionListParams>) =>
      Effect.gen(function*() {
        yield* requireReader(p)
        const { rows, total } = yield* sessions.list(p.tenantId, p.userId, params.workflow_id, params.page_size, pageOffset(params))
        return pageOf(params, rows.map(toSession), total)
      })

    const currentSession = (p: Principal, workflowId: WorkflowId) =>
      Effect.gen(function*() {
        const w = yield* chatWorkflow(p, workflowId)
        const latest = yield* sessions.latest(p.tenantId, p.userId, w.id, "web")
        if (Option.isSome(latest)) return toSession(latest.value)
        return toSession(yield* sessions.insert({ tenant_id: p.tenantId, workflow_id: w.id, user_id: p.userId, input_params: {}, channel: "web" }))
      })

    const getSession = (p: Principal, id: ChatSessionId) => session(p, id).pipe(Effect.map(toSession))

    const renameSession = (p: Principal, id: ChatSessionId, title: string) =>
      Effect.gen(function*() {
        yield* session(p, id)
        const row = yield* sessions.rename(p.tenantId, id, title.trim())
        return toSession(yield* Option.match(row, { onNone: () => Effect.fail(notFound("Chat session")), onSome: Effect.succeed }))
      })

    const deleteSession = (p: Principal, id: ChatSessionId) => session(p, id).pipe(Effect.zipRight(sessions.softDelete(p.tenantId, id)))

    /** Per-turn identity: the caller's user_context, or the impersonated user's identity over it. */
    const turnContext = (p: Principal, body: SendMessage) =>
      Effect.gen(function*() {
        if (body.user_context === undefined && body.impersonation_request === undefined) return undefined
        yield* requireImpersonationFlag(p)
        const ask = body.impersonation_request
        if (ask === undefined) return body.user_context
        yield* requireImpersonator(p)
        const target = ask.user_id !== undefined
          ? yield* users.member(p, ask.user_id)
          : ask.user_email !== undefined
          ? yield* users.memberByEmail(p, ask.user_email)
          : Option.none()
        if (Option.isNone(target)) {
          return yield* unprocessable("IMPERSONATION_TARGET_NOT_FOUND", "impersonation_request names no user of this workspace")
        }
        const u = target.value
        yield* audit.record(p, {
          action: "chat.impersonation",
          resourceType: "user",
          resourceId: u.id,
          details: { ...(ask.reason !== undefined ? { reason: ask.reason } : {}) }
        })
        return { ...body.user_context, user_id: u.id, email: u.email, name: u.name, role: u.role, impersonated_by: p.userId }
      })

    const sendMessage = (p: Principal, id: ChatSessionId, body: SendMessage, idempotencyKey: string | undefined) =>
      Effect.gen(function*() {
        const s = yield* session(p, id)
        const userContext = yield* turnContext(p, body)
        return yield* intake.post({
          principal: p,
          via: p,
          workflowId: s.workflow_id,
          session: Effect.succeed(s),
          content: body.content,
          isDryRun: body.is_dry_run ?? false,
          userContext,
          idempotency: { key: idempotencyKey, operation: `chat-message:${id}`, request: body }
        })
      })

    /** Oldest first; tokens in the owner's own messages are shown back as what they stand for. */
    const listMessages = (p: Principal, id: ChatSessionId) =>
      Effect.gen(function*() {
        const s = yield* session(p, id)
        const rows = yield* messages.list(p.tenantId, s.id)
        const contents = yield* vault.reveal(s.id, rows.map((r) => r.content))
        return { items: rows.map((r, i) => toMessage(r, contents[i])) }
      })

    const followRun = (p: Principal, runId: string, lastEventId: number) =>
      Effect.gen(function*() {
        yield* requireReader(p)
        const run = yield* runs.get(p, runId)
        const sessionId = Option.getOrUndefined(run)?.session_id ?? null
        const s = sessionId === null ? Option.none() : yield* sessions.get(p.tenantId, sessionId)
        if (Option.isNone(run) || Option.isNone(s) || !mayFollow(p, s.value)) return yield* Effect.fail(notFound("Chat run"))
        return yield* runs.follow(run.value, lastEventId)
      })

    const embedConfig = (p: Principal, workflowId: WorkflowId) =>
      Effect.gen(function*() {
        yield* requireReader(p)
        yield* requireWidgetReach(p, workflowId)
        const w = yield* workflows.visible(p, workflowId)
        const config = w.config
        return {
          workflow_id: w.id,
          name: w.name,
          ...(w.description !== null ? { description: w.description } : {}),
          ...(w.icon !== null ? { icon: w.icon } : {}),
          interaction_type: w.interaction_type,
          published: w.active_version !== null,
          welcome_message: config.welcome_message,
          welcome_buttons: config.welcome_buttons,
          feedback_pills: { enabled: config.feedback_enabled, categories: config.feedback_categories }
        }
      })

    /** A question of this session's AI Employee, raised by one of its runs; then the ordinary respond. */
    const respondHitl = (p: Principal, requestId: string, body: Schema.Schema.Type<typeof C.ChatHitlRespondRequest>) =>
      Effect.gen(function*() {
        const s = yield* session(p, body.session_id)
        const request = yield* runs.hitlRequest(p, requestId)
        const run = yield* runs.get(p, request.run_id)
        if (request.workflow_id !== s.workflow_id || Option.getOrUndefined(run)?.session_id !== s.id) {
          return yield* Effect.fail(notFound("HITL request in this chat session"))
        }
        return yield* runs.respondHitl(p, requestId, body.response)
      })

    return traced("Chat", {
      createSession,
      listSessions,
      currentSession,
      getSession,
      renameSession,
      deleteSession,
      sendMessage,
      listMessages,
      followRun,
      embedConfig,
      respondHitl,
      session,
      chatWorkflow
    })
  })
}) {}
