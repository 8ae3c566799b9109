import { queryOptions } from "@tanstack/react-query"
import { api } from "../../api/client"

/** The workspace's chat AI Employees: the ones a person can talk to here. */
export const chatEmployeesQuery = queryOptions({
  queryKey: ["ai-employees", "chat"],
  queryFn: () => api((c) => c.workflows.list({ urlParams: { page_size: 100, archived: false, interaction_type: "chat" } })),
  staleTime: 60_000
})

/** The caller's sessions with one AI Employee, newest activity first. */
export const sessionsQuery = (workflowId: string) =>
  queryOptions({
    queryKey: ["chat", "sessions", workflowId],
    queryFn: () => api((c) => c.chat.listSessions({ urlParams: { workflow_id: workflowId as never, page: 1, page_size: 100 } }))
  })

export const sessionQuery = (sessionId: string) =>
  queryOptions({
    queryKey: ["chat", "session", sessionId],
    queryFn: () => api((c) => c.chat.getSession({ path: { session_id: sessionId as never } }))
  })

export const messagesQuery = (sessionId: string) =>
  queryOptions({
    queryKey: ["chat", "messages", sessionId],
    queryFn: () => api((c) => c.chat.listMessages({ path: { session_id: sessionId as never } }))
  })

/** What the chat UI shows for the AI Employee (welcome message, buttons, feedback pills): its embed config. */
export const embedQuery = (workflowId: string) =>
  queryOptions({
    queryKey: ["chat", "embed", workflowId],
    queryFn: () => api((c) => c.chat.embedConfig({ path: { workflow_id: workflowId as never } })),
    staleTime: 60_000
  })
