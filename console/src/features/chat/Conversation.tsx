import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useRef, useState } from "react"
import type { ChatSession } from "../../../../schemas/Chat"
import { api } from "../../api/client"
import { ErrorState, Loading } from "../../ui/States"
import { retryAfterOf, TryLater, useCountdown } from "../../ui/TryLater"
import { HitlCard } from "../inbox/HitlCard"
import { embedQuery, messagesQuery } from "./chatApi"
import { MessageView } from "./MessageView"
import { useChatRun } from "./useChatRun"

/** The question a chat run waits on, answered here through the session. */
const WaitingOn = ({ requestId, session }: { readonly requestId: string; readonly session: ChatSession }) => {
  const request = useQuery({ queryKey: ["hitl", requestId], queryFn: () => api((c) => c.hitl.get({ path: { request_id: requestId } })) })
  if (request.data === undefined) return request.error !== null ? <ErrorState error={request.error} /> : <Loading label="Loading the question" />
  if (request.data.status !== "pending" && request.data.status !== "claimed") return null
  return (
    <HitlCard
      request={request.data}
      employee={undefined}
      canCancel={false}
      respond={(response) => api((c) => c.chat.hitlRespond({ path: { request_id: requestId }, payload: { session_id: session.id, response } }))}
    />
  )
}

/** A session's conversation: its turns, the answer being written, suggested replies, the composer. */
export const Conversation = ({ session }: { readonly session: ChatSession }) => {
  const queryClient = useQueryClient()
  const messages = useQuery({
    ...messagesQuery(session.id),
    // The stream says when an answer is written; a slow poll covers a stream that could not be opened.
    refetchInterval: (q) => q.state.data?.items.some((m) => m.status === "running" || m.status === "queued") === true ? 3_000 : false
  })
  const embed = useQuery(embedQuery(session.workflow_id))
  const [draft, setDraft] = useState("")
  const [dryRun, setDryRun] = useState(false)
  const end = useRef<HTMLDivElement>(null)
  const items = messages.data?.items ?? []
  const active = items.find((m) => m.role === "user" && (m.status === "running" || m.status === "queued") && m.run_id !== undefined)
  const [unsaved, setUnsaved] = useState<ReadonlyMap<string, string>>(new Map())
  const keepUnsaved = useCallback((replyTo: string, content: string) => setUnsaved((m) => new Map(m).set(replyTo, content)), [])
  const run = useChatRun(active?.status === "running" ? active.run_id : undefined, session.id, keepUnsaved)
  const send = useMutation({
    mutationFn: (content: string) =>
      api((c) => c.chat.sendMessage({ path: { session_id: session.id }, payload: dryRun ? { content, is_dry_run: true } : { content }, headers: {} })),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ["chat", "messages", session.id] }),
        queryClient.invalidateQueries({ queryKey: ["chat", "sessions"] })
      ])
  })
  // Refused for now (the workspace's start rate, or its share of a busy platform): the draft is
  // kept and Send waits out the Retry-After.
  const wait = useCountdown(retryAfterOf(send.error))
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" })
  }, [items.length, run.text])
  // A turn can end before the page sees it running (a fast run, or one queued at the last read):
  // then no stream says so. The session and the list of sessions (a title given, a handover to a
  // person) are read again here whenever a turn ends.
  const turns = messages.data === undefined ? undefined : items.map((m) => m.status).join()
  const seenTurns = useRef<string | undefined>(undefined)
  useEffect(() => {
    if (turns === undefined || seenTurns.current === turns) return
    const first = seenTurns.current === undefined
    seenTurns.current = turns
    if (first || active !== undefined) return
    void queryClient.invalidateQueries({ queryKey: ["chat", "session", session.id] })
    void queryClient.invalidateQueries({ queryKey: ["chat", "sessions"] })
  }, [turns, active, session.id, queryClient])
  const ask = (content: string) => {
    if (content.trim() === "" || send.isPending || wait > 0) return
    send.mutate(content.trim(), { onSuccess: () => setDraft("") })
  }
  const submit = (e: FormEvent) => {
    e.preventDefault()
    ask(draft)
  }
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault()
      ask(draft)
    }
  }
  if (messages.isPending) return <Loading label="Loading the conversation" />
  if (messages.error !== null) return <ErrorState error={messages.error} retry={() => void messages.refetch()} />
  const feedback = embed.data?.feedback_pills ?? { enabled: false, categories: [] }
  const last = items.at(-1)
  const buttons = items.length === 0 ? embed.data?.welcome_buttons ?? [] : last?.role === "assistant" ? last.response_buttons : []
  const transferred = session.status === "transferred"
  return (
    <div className="conversation">
      <ol className="chat-log" aria-label="Conversation" aria-live="polite">
        {items.length === 0 && embed.data?.welcome_message != null && (
          <li className="chat-message assistant">
            <div className="bubble">{embed.data.welcome_message}</div>
          </li>
        )}
        {items.map((m) => <MessageView key={m.id} message={m} feedback={feedback} unsavedAnswer={m.is_dry_run ? unsaved.get(m.id) : undefined} />)}
        {active !== undefined && (
          <li className="chat-message assistant pending" aria-label="Assistant (writing)">
            <div className="bubble">{run.text !== "" ? run.text : active.status === "queued" ? "Waiting for the previous answer…" : "Thinking…"}</div>
          </li>
        )}
      </ol>
      {run.waitingOn !== undefined && <WaitingOn requestId={run.waitingOn} session={session} />}
      {transferred && <p className="banner" role="status">This conversation was handed over to a person: the AI Employee answers no more here.</p>}
      {buttons.length > 0 && active === undefined && (
        <div className="quick-replies" role="group" aria-label="Suggested replies">
          {buttons.map((b) => <button key={b.value} type="button" onClick={() => ask(b.value)} disabled={send.isPending || wait > 0}>{b.label}</button>)}
        </div>
      )}
      <div ref={end} />
      <form className="composer" onSubmit={submit}>
        <label className="visually-hidden" htmlFor="chat-input">Message</label>
        <textarea
          id="chat-input"
          rows={2}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKey}
          maxLength={32_000}
          placeholder={transferred ? "Handed over to a person" : "Write a message (Enter to send, Shift+Enter for a new line)"}
          disabled={transferred}
        />
        <div className="composer-actions">
          <label className="check">
            <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.target.checked)} /> Dry run
          </label>
          <button type="submit" className="primary" disabled={send.isPending || wait > 0 || draft.trim() === "" || transferred}>Send</button>
        </div>
      </form>
      {send.error !== null && <TryLater error={send.error} left={wait} refused="Not sent" kept="Your message is kept." />}
    </div>
  )
}
