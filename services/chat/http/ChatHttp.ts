import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { lastEventId } from "../../../platform/http/LastEventId.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { Chat } from "../Chat.js"
import { ChatFeedback } from "../ChatFeedback.js"
import { ExternalChat } from "../ExternalChat.js"

export const ChatHttp = HttpApiBuilder.group(PlatformApi, "chat", (handlers) =>
  Effect.gen(function*() {
    const chat = yield* Chat
    const feedback = yield* ChatFeedback
    const external = yield* ExternalChat
    return handlers
      .handle("createSession", ({ payload }) => asCaller((p) => chat.createSession(p, payload)))
      .handle("listSessions", ({ urlParams }) => asCaller((p) => chat.listSessions(p, urlParams)))
      .handle("currentSession", ({ urlParams }) => asCaller((p) => chat.currentSession(p, urlParams.workflow_id)))
      .handle("getSession", ({ path }) => asCaller((p) => chat.getSession(p, path.session_id)))
      .handle("renameSession", ({ path, payload }) => asCaller((p) => chat.renameSession(p, path.session_id, payload.title)))
      .handle("deleteSession", ({ path }) => asCaller((p) => chat.deleteSession(p, path.session_id)))
      .handle(
        "sendMessage",
        ({ headers, path, payload }) => asCaller((p) => chat.sendMessage(p, path.session_id, payload, headers["idempotency-key"]))
      )
      .handle("listMessages", ({ path }) => asCaller((p) => chat.listMessages(p, path.session_id)))
      .handle("stream", ({ path }) => asCaller((principal) => Effect.flatMap(lastEventId, (last) => chat.followRun(principal, path.run_id, last))))
      .handle("feedback", ({ path, payload }) => asCaller((p) => feedback.rate(p, path.message_id, payload)))
      .handle("feedbackText", ({ path, payload }) => asCaller((p) => feedback.comment(p, path.message_id, payload)))
      .handle("embedConfig", ({ path }) => asCaller((p) => chat.embedConfig(p, path.workflow_id)))
      .handle("hitlRespond", ({ path, payload }) => asCaller((p) => chat.respondHitl(p, path.request_id, payload)))
      .handle("externalTrigger", ({ headers, payload }) => asCaller((p) => external.trigger(p, payload, headers["idempotency-key"])))
      .handle("externalChat", ({ headers, payload }) => asCaller((p) => external.converse(p, payload, headers["idempotency-key"])))
  }))
