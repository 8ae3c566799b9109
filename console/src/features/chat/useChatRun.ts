import { useQueryClient } from "@tanstack/react-query"
import { Either, Schema } from "effect"
import { useEffect, useState } from "react"
import { isFinalEvent, RunStreamEvent } from "../../../../schemas/RunLifecycle"

const decodeEvent = Schema.decodeUnknownEither(Schema.parseJson(RunStreamEvent))

export interface ChatRunState {
  /** The answer as its tokens arrived. */
  readonly text: string
  /** The HITL request the run waits on, while it waits. */
  readonly waitingOn: string | undefined
  readonly ended: boolean
}

/**
 * A chat turn's run as it goes (the chat stream, SSE: resumed by the browser with Last-Event-ID,
 * replayed from the start for a run that began before the page opened): the streamed answer, the
 * question it waits on, its end, when the session's messages are read again.
 */
export const useChatRun = (runId: string | undefined, sessionId: string, onUnsaved: (replyTo: string, content: string) => void) => {
  const [state, setState] = useState<ChatRunState>({ text: "", waitingOn: undefined, ended: false })
  const queryClient = useQueryClient()
  useEffect(() => {
    setState({ text: "", waitingOn: undefined, ended: false })
    if (runId === undefined) return
    const source = new EventSource(`/api/v1/chat/runs/${runId}/stream`)
    const seen = new Set<number>()
    const refresh = () => {
      // The session and the list of sessions are read again by the conversation once its turns change.
      void queryClient.invalidateQueries({ queryKey: ["chat", "messages", sessionId] })
    }
    source.onmessage = (message: MessageEvent<string>) => {
      const id = Number(message.lastEventId)
      if (seen.has(id)) return
      seen.add(id)
      const decoded = decodeEvent(message.data)
      if (Either.isLeft(decoded)) return
      const event = decoded.right
      if (event.type === "token") setState((s) => ({ ...s, text: s.text + event.delta }))
      else if (event.type === "run_paused") setState((s) => ({ ...s, waitingOn: event.request_id }))
      else if (event.type === "run_resumed") setState((s) => ({ ...s, waitingOn: undefined }))
      else if (event.type === "assistant_message") {
        // A dry run's answer is not stored: the page keeps it while it is open.
        if (!event.persisted) onUnsaved(event.reply_to, event.content)
        refresh()
      }
      if (isFinalEvent(event.type)) {
        source.close()
        setState((s) => ({ ...s, ended: true, waitingOn: undefined }))
        refresh()
      }
    }
    return () => source.close()
  }, [runId, sessionId, queryClient, onUnsaved])
  return state
}
