import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Link, useNavigate } from "@tanstack/react-router"
import { api } from "../../api/client"
import { When } from "../../ui/Bits"
import { ErrorState, Loading } from "../../ui/States"
import { sessionsQuery } from "./chatApi"

/** The caller's conversations with one AI Employee, the open one marked; a new one started here. */
export const SessionList = ({ workflowId, current }: { readonly workflowId: string; readonly current: string | undefined }) => {
  const sessions = useQuery(sessionsQuery(workflowId))
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const create = useMutation({
    mutationFn: () => api((c) => c.chat.createSession({ payload: { workflow_id: workflowId as never } })),
    onSuccess: async (session) => {
      await queryClient.invalidateQueries({ queryKey: ["chat", "sessions", workflowId] })
      await navigate({ to: "/chat", search: { employee: workflowId, session: session.id } })
    }
  })
  return (
    <nav className="chat-sessions" aria-label="Conversations">
      <button type="button" className="primary" onClick={() => create.mutate()} disabled={create.isPending}>New conversation</button>
      {create.error !== null && <ErrorState error={create.error} />}
      {sessions.isPending ? <Loading label="Loading conversations" /> : sessions.error !== null ? <ErrorState error={sessions.error} /> : (
        <ul>
          {sessions.data.items.map((s) => (
            <li key={s.id}>
              <Link to="/chat" search={{ employee: workflowId, session: s.id }} aria-current={s.id === current ? "page" : undefined}>
                <span className="title">{s.title === "" ? "New conversation" : s.title}</span>
                <span className="muted small">
                  <When at={s.last_activity_at} />
                  {s.status === "transferred" ? " · with a person" : ""}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </nav>
  )
}
