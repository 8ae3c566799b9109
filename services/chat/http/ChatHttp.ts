import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { lastEventId } from "../../../platform/http/LastEventId.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { Chat } from "../Chat.js"
import { ChatFeedback } from "../ChatFeedback.js"
import { ExternalChat } from "../ExternalChat.js"

export const ChatHttp = HttpApiBuilder.group(PlatformApi, "chat", (handlers) =>
  Effect.gen(function*() {
    const chat = yield* Chat
    const feedback = yield* ChatFeedback
    const external = yield* ExternalChat
    const as = CurrentPrincipal
    return handlers
      .handle("createSession", ({ payload }) => Effect.flatMap(as, (p) => chat.createSession(p, payload)))
      .handle("listSessions", ({ urlParams }) => Effect.flatMap(as, (p) => chat.listSessions(p, urlParams)))
      .handle("currentSession", ({ urlParams }) => Effect.flatMap(as, (p) => chat.currentSession(p, urlParams.workflow_id)))
      .handle("getSession", ({ path }) => Effect.flatMap(as, (p) => chat.getSession(p, path.session_id)))
      .handle("renameSession", ({ path, payload }) => Effect.flatMap(as, (p) => chat.renameSession(p, path.session_id, payload.title)))
      .handle("deleteSession", ({ path }) => Effect.flatMap(as, (p) => chat.deleteSession(p, path.session_id)))
      .handle(
        "sendMessage",
        ({ headers, path, payload }) => Effect.flatMap(as, (p) => chat.sendMessage(p, path.session_id, payload, headers["idempotency-key"]))
      )
      .handle("listMessages", ({ path }) => Effect.flatMap(as, (p) => chat.listMessages(p, path.session_id)))
      .handle("stream", ({ path }) =>
        Effect.gen(function*() {
          const principal = yield* as
          return yield* chat.followRun(principal, path.run_id, yield* lastEventId)
        }))
      .handle("feedback", ({ path, payload }) => Effect.flatMap(as, (p) => feedback.rate(p, path.message_id, payload)))
      .handle("feedbackText", ({ path, payload }) => Effect.flatMap(as, (p) => feedback.comment(p, path.message_id, payload)))
      .handle("embedConfig", ({ path }) => Effect.flatMap(as, (p) => chat.embedConfig(p, path.workflow_id)))
      .handle("hitlRespond", ({ path, payload }) => Effect.flatMap(as, (p) => chat.respondHitl(p, path.request_id, payload)))
      .handle("externalTrigger", ({ headers, payload }) => Effect.flatMap(as, (p) => external.trigger(p, payload, headers["idempotency-key"])))
      .handle("externalChat", ({ headers, payload }) => Effect.flatMap(as, (p) => external.converse(p, payload, headers["idempotency-key"])))
  }))
