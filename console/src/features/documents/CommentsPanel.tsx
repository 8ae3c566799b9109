import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import type { Document, Thread } from "../../../../schemas/Docgen"
import { api } from "../../api/client"
import { When } from "../../ui/Bits"
import { ErrorState, Query } from "../../ui/States"
import type { Selection } from "./DocumentEditor"

const ThreadView = ({ doc, thread }: { readonly doc: Document; readonly thread: Thread }) => {
  const queryClient = useQueryClient()
  const [reply, setReply] = useState("")
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["documents", doc.id, "threads"] })
  const answer = useMutation({
    mutationFn: () => api((c) => c.docgen.reply({ path: { id: doc.id, threadId: thread.id }, payload: { content: reply } })),
    onSuccess: async () => {
      setReply("")
      await refresh()
    }
  })
  const resolve = useMutation({
    mutationFn: () =>
      api((c) => c.docgen.updateThread({ path: { id: doc.id, threadId: thread.id }, payload: { status: thread.status === "open" ? "resolved" : "open" } })),
    onSuccess: refresh
  })
  return (
    <li className={`thread ${thread.status}`}>
      {thread.anchor.quote !== undefined && <blockquote>{thread.anchor.quote}</blockquote>}
      <ul>
        {thread.comments.filter((c) => !c.deleted).map((c) => (
          <li key={c.id}>
            {c.content}{" "}
            <span className="muted small">
              <When at={c.created_at} />
            </span>
          </li>
        ))}
      </ul>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault()
          answer.mutate()
        }}
      >
        <label className="visually-hidden" htmlFor={`reply-${thread.id}`}>Reply</label>
        <input id={`reply-${thread.id}`} value={reply} onChange={(e) => setReply(e.target.value)} placeholder="Reply" />
        <button type="submit" disabled={reply.trim() === "" || answer.isPending}>Reply</button>
        <button type="button" onClick={() => resolve.mutate()} disabled={resolve.isPending}>{thread.status === "open" ? "Resolve" : "Reopen"}</button>
      </form>
      {(answer.error ?? resolve.error) !== null && <ErrorState error={answer.error ?? resolve.error} />}
    </li>
  )
}

/** Comment threads anchored to the text they are about (its quote, position and section), replies, resolve and reopen. */
export const CommentsPanel = ({ doc, selection }: { readonly doc: Document; readonly selection: Selection | undefined }) => {
  const queryClient = useQueryClient()
  const threads = useQuery({ queryKey: ["documents", doc.id, "threads"], queryFn: () => api((c) => c.docgen.threads({ path: { id: doc.id } })) })
  const [content, setContent] = useState("")
  const create = useMutation({
    mutationFn: (anchor: Selection) =>
      api((c) =>
        c.docgen.createThread({
          path: { id: doc.id },
          payload: {
            content,
            anchor: { quote: anchor.text, start: anchor.from, end: anchor.to, ...(anchor.sectionId !== undefined ? { section_id: anchor.sectionId } : {}) }
          }
        })
      ),
    onSuccess: async () => {
      setContent("")
      await queryClient.invalidateQueries({ queryKey: ["documents", doc.id, "threads"] })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (selection !== undefined) create.mutate(selection)
  }
  return (
    <section aria-label="Comments">
      <h3>Comments</h3>
      <form onSubmit={submit} className="settings-form">
        <p className="muted small">{selection === undefined ? "Select text in the document to comment on it." : `On “${selection.text.slice(0, 80)}”`}</p>
        <label>
          New comment <textarea rows={2} value={content} onChange={(e) => setContent(e.target.value)} />
        </label>
        <button type="submit" disabled={selection === undefined || content.trim() === "" || create.isPending}>Comment on the selection</button>
        {create.error !== null && <ErrorState error={create.error} />}
      </form>
      <Query query={threads}>{(l) => <ul className="threads">{l.items.map((t) => <ThreadView key={t.id} doc={doc} thread={t} />)}</ul>}</Query>
    </section>
  )
}
