import { Layer } from "effect"
import { isolated } from "../../platform/Isolated.js"
import { Authentication } from "../../schemas/Security.js"
import { Chat } from "./Chat.js"
import { ChatFeedback } from "./ChatFeedback.js"
import { ChatRunHooksLive, ChatTurns } from "./ChatTurns.js"
import { ExternalChat } from "./ExternalChat.js"
import { ChatHttp } from "./http/ChatHttp.js"
import { MessagesRepo } from "./MessagesRepo.js"
import { SessionsRepo } from "./SessionsRepo.js"
import { Titles } from "./Titles.js"

/** Chat follows its runs to their end from inside the run kernel: answers, queued turns, titles. */
export const ChatRunEndLive = ChatRunHooksLive.pipe(
  Layer.provideMerge(ChatTurns.layer),
  Layer.provideMerge(Titles.layer),
  Layer.provideMerge(Layer.mergeAll(SessionsRepo.Default, MessagesRepo.Default))
)

/** The chat service: sessions, messages, feedback, external channels. */
export const ChatLive = Layer.mergeAll(Chat.Default, ChatFeedback.Default, ExternalChat.Default)

export const ChatHttpLive = isolated(ChatHttp, Authentication, Chat, ChatFeedback, ExternalChat)
