import { useQuery } from "@tanstack/react-query"
import { Navigate, useNavigate, useSearch } from "@tanstack/react-router"
import { api } from "../../api/client"
import { Empty, ErrorState, Loading, Query } from "../../ui/States"
import { chatEmployeesQuery, sessionQuery } from "./chatApi"
import { Conversation } from "./Conversation"
import { SessionHeader } from "./SessionHeader"
import { SessionList } from "./SessionList"
import "./chat.css"

/** Without a session named: the caller's current one with this AI Employee (made when there is none). */
const CurrentSession = ({ workflowId }: { readonly workflowId: string }) => {
  const current = useQuery({
    queryKey: ["chat", "current", workflowId],
    queryFn: () => api((c) => c.chat.currentSession({ urlParams: { workflow_id: workflowId as never } })),
    gcTime: 0
  })
  if (current.error !== null) return <ErrorState error={current.error} retry={() => void current.refetch()} />
  if (current.data === undefined) return <Loading label="Opening the conversation" />
  return <Navigate to="/chat" search={{ employee: workflowId, session: current.data.id }} replace />
}

const OpenSession = ({ sessionId }: { readonly sessionId: string }) => (
  <Query query={useQuery(sessionQuery(sessionId))}>
    {(session) => (
      <>
        <SessionHeader key={session.id} session={session} />
        <Conversation key={`c-${session.id}`} session={session} />
      </>
    )}
  </Query>
)

/** Chat with the workspace's chat AI Employees: one picked, its conversations beside the open one. */
export const ChatPage = () => {
  const search = useSearch({ from: "/app/chat" })
  const navigate = useNavigate()
  const employees = useQuery(chatEmployeesQuery)
  if (employees.isPending) return <Loading />
  if (employees.error !== null) return <ErrorState error={employees.error} retry={() => void employees.refetch()} />
  const items = employees.data.items
  if (items.length === 0) return <Empty>No chat AI Employee yet: create one with the interaction type “chat” and publish it.</Empty>
  const employee = search.employee ?? items[0].id
  return (
    <section className="chat-page" aria-labelledby="chat-title">
      <div className="page-head">
        <h1 id="chat-title">Chat</h1>
        <label>
          AI Employee{" "}
          <select value={employee} onChange={(e) => void navigate({ to: "/chat", search: { employee: e.target.value } })}>
            {items.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
          </select>
        </label>
      </div>
      <div className="chat-layout">
        <SessionList workflowId={employee} current={search.session} />
        <div className="chat-main">
          {search.session === undefined ? <CurrentSession workflowId={employee} /> : <OpenSession sessionId={search.session} />}
        </div>
      </div>
    </section>
  )
}
