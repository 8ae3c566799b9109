import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useNavigate } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import type { ChatSession } from "../../../../schemas/Chat"
import { api } from "../../api/client"
import { StatusBadge } from "../../ui/Bits"
import { ErrorState } from "../../ui/States"

/** The open conversation's title (renamed in place) and its deletion. */
export const SessionHeader = ({ session }: { readonly session: ChatSession }) => {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [editing, setEditing] = useState(false)
  const [title, setTitle] = useState(session.title)
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["chat", "sessions", session.workflow_id] }),
      queryClient.invalidateQueries({ queryKey: ["chat", "session", session.id] })
    ])
  const rename = useMutation({
    mutationFn: (next: string) => api((c) => c.chat.renameSession({ path: { session_id: session.id }, payload: { title: next } })),
    onSuccess: async () => {
      setEditing(false)
      await refresh()
    }
  })
  const remove = useMutation({
    mutationFn: () => api((c) => c.chat.deleteSession({ path: { session_id: session.id } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ["chat", "sessions", session.workflow_id] })
      await navigate({ to: "/chat", search: { employee: session.workflow_id } })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    rename.mutate(title.trim())
  }
  return (
    <div className="page-head chat-head">
      {editing
        ? (
          <form onSubmit={submit} className="inline-form">
            <label>
              Title <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} autoFocus />
            </label>
            <button type="submit" className="primary" disabled={rename.isPending}>Save title</button>
            <button type="button" onClick={() => setEditing(false)}>Cancel</button>
          </form>
        )
        : <h2>{session.title === "" ? "New conversation" : session.title}</h2>}
      {session.status === "transferred" && <StatusBadge status="transferred" />}
      {!editing && (
        <div className="actions">
          <button
            type="button"
            onClick={() => {
              setTitle(session.title)
              setEditing(true)
            }}
          >
            Rename
          </button>
          <button
            type="button"
            className="danger"
            disabled={remove.isPending}
            onClick={() => window.confirm("Delete this conversation?") && remove.mutate()}
          >
            Delete
          </button>
        </div>
      )}
      {(rename.error ?? remove.error) !== null && <ErrorState error={rename.error ?? remove.error} />}
    </div>
  )
}
