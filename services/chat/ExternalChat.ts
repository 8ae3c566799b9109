import { Effect, Option, Redacted } from "effect"
import type { Schema } from "effect"
import { createHmac } from "node:crypto"
import { LocalSecrets } from "../../platform/LocalSecrets.js"
import { traced } from "../../platform/Traced.js"
import type * as C from "../../schemas/Chat.js"
import { unprocessable } from "../../schemas/Errors.js"
import type { TenantId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import { People } from "../ports/People.js"
import { Chat } from "./Chat.js"
import { requireApiKey, requireImpersonationFlag, requireWidgetReach } from "./ChatPolicy.js"
import { SessionsRepo } from "./SessionsRepo.js"
import { TurnIntake } from "./TurnIntake.js"

/**
 * Chat from other systems, with a tenant API key. external/trigger speaks for a platform user
 * (their access token names them); external/chat for a visitor the caller names and the platform
 * does not verify, kept apart from everyone else by a keyed hash of that name.
 */
export class ExternalChat extends Effect.Service<ExternalChat>()("ExternalChat", {
  dependencies: [Chat.Default, SessionsRepo.Default, TurnIntake.Default],
  effect: Effect.gen(function*() {
    const users = yield* People
    const sessions = yield* SessionsRepo
    const chat = yield* Chat
    const intake = yield* TurnIntake
    const key = Buffer.from(Redacted.value((yield* LocalSecrets).credentialsKey))
    const subjectOf = (tenantId: TenantId, identity: string) =>
      createHmac("sha256", key).update(`external-subject\0${tenantId}\0${identity.trim().toLowerCase()}`).digest("hex")

    const trigger = (p: Principal, body: Schema.Schema.Type<typeof C.ExternalTriggerRequest>, idempotencyKey: string | undefined) =>
      Effect.gen(function*() {
        yield* requireApiKey(p)
        if (body.user_context_override !== undefined) yield* requireImpersonationFlag(p)
        const user = yield* users.principalOf(body.bearer_token).pipe(
          Effect.mapError(() => unprocessable("INVALID_BEARER_TOKEN", "bearer_token is not a valid access token"))
        )
        if (user.tenantId !== p.tenantId) {
          return yield* unprocessable("INVALID_BEARER_TOKEN", "bearer_token belongs to another workspace")
        }
        yield* chat.chatWorkflow(user, body.workflow_id)
        const session = body.conversation_id !== undefined
          ? sessions.conversation({
            tenant_id: user.tenantId,
            workflow_id: body.workflow_id,
            user_id: user.userId,
            input_params: {},
            channel: body.channel_type,
            conversation_id: body.conversation_id
          })
          : sessions.latest(user.tenantId, user.userId, body.workflow_id, body.channel_type).pipe(
            Effect.flatMap(Option.match({
              onSome: Effect.succeed,
              onNone: () =>
                sessions.insert({
                  tenant_id: user.tenantId,
                  workflow_id: body.workflow_id,
                  user_id: user.userId,
                  input_params: {},
                  channel: body.channel_type
                })
            }))
          )
        const member = yield* users.member(user, user.userId)
        const identity = {
          user_id: user.userId,
          email: user.email,
          ...(Option.isSome(member) ? { name: member.value.name } : {}),
          role: user.role,
          channel_type: body.channel_type
        }
        return yield* intake.post({
          principal: user,
          via: p,
          workflowId: body.workflow_id,
          session,
          content: body.message,
          isDryRun: false,
          userContext: { ...identity, ...body.user_context_override },
          idempotency: { key: idempotencyKey, operation: "chat-external-trigger", request: body }
        })
      })

    const converse = (p: Principal, body: Schema.Schema.Type<typeof C.ExternalChatRequest>, idempotencyKey: string | undefined) =>
      Effect.gen(function*() {
        yield* requireApiKey(p)
        const email = body.user_context?.email
        const identity = body.external_user_id ?? (typeof email === "string" && email.trim() !== "" ? email : undefined)
        if (identity === undefined) {
          return yield* unprocessable("IDENTITY_REQUIRED", "Send external_user_id, or user_context.email, to say who is chatting")
        }
        yield* requireWidgetReach(p, body.workflow_id)
        yield* chat.chatWorkflow(p, body.workflow_id)
        const base = {
          tenant_id: p.tenantId,
          workflow_id: body.workflow_id,
          user_id: p.userId,
          input_params: {},
          channel: "external",
          external_subject: subjectOf(p.tenantId, identity)
        }
        const session = body.conversation_id !== undefined
          ? sessions.conversation({ ...base, conversation_id: body.conversation_id })
          : sessions.insert({ ...base, single_shot: true })
        return yield* intake.post({
          principal: p,
          via: p,
          workflowId: body.workflow_id,
          session,
          content: body.message,
          isDryRun: false,
          userContext: {
            ...body.user_context,
            ...(body.external_user_id !== undefined ? { external_user_id: body.external_user_id } : {})
          },
          idempotency: { key: idempotencyKey, operation: "chat-external-chat", request: body }
        })
      })

    return traced("ExternalChat", { trigger, converse })
  })
}) {}
