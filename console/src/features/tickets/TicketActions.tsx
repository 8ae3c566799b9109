import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { useNavigate } from "@tanstack/react-router"
import { useState } from "react"
import type { Ticket } from "../../../../schemas/Ticketing"
import { api } from "../../api/client"
import { ErrorState } from "../../ui/States"
import { OPEN_STATUSES, queuesQuery } from "./ticketsApi"

type Action =
  | { readonly kind: "status"; readonly status: (typeof OPEN_STATUSES)[number] }
  | { readonly kind: "close"; readonly resolution: string }
  | { readonly kind: "assign"; readonly email: string | null }
  | { readonly kind: "move"; readonly group: string }
  | { readonly kind: "delete" }

/** What can be done to a ticket: status, assignment, a move to another queue, closing with a resolution, deletion. */
export const TicketActions = ({ ticket }: { readonly ticket: Ticket }) => {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const queues = useQuery(queuesQuery)
  const [assignee, setAssignee] = useState(ticket.assignee_email ?? "")
  const [resolution, setResolution] = useState("")
  const [target, setTarget] = useState("")
  const path = { groupID: ticket.group_id, ticketID: ticket.id }
  const act = useMutation({
    mutationFn: (a: Action) =>
      a.kind === "status"
        ? api((c) => c.ticketing.setStatus({ path, payload: { status: a.status } }))
        : a.kind === "close"
        ? api((c) => c.ticketing.close({ path, payload: a.resolution.trim() === "" ? {} : { resolution: a.resolution } }))
        : a.kind === "assign"
        ? api((c) => c.ticketing.assign({ path, payload: { assignee_email: a.email } }))
        : a.kind === "move"
        ? api((c) => c.ticketing.move({ path, payload: { group_id: a.group } }))
        : api((c) => c.ticketing.deleteTicket({ path })).then(() => undefined),
    // Away from a page whose ticket is gone (deleted) or now lives in another queue first: its reads there would be 404s.
    onSuccess: async (t) => {
      if (t === undefined) await navigate({ to: "/tickets", search: { group: ticket.group_id } })
      else if (t.group_id !== ticket.group_id) await navigate({ to: "/tickets/$groupId/$ticketId", params: { groupId: t.group_id, ticketId: t.id } })
      if (t === undefined || t.group_id !== ticket.group_id) queryClient.removeQueries({ queryKey: ["tickets", "ticket", ticket.group_id, ticket.id] })
      await queryClient.invalidateQueries({ queryKey: ["tickets"] })
    }
  })
  const closed = ticket.status === "CLOSED"
  const others = (queues.data?.queues ?? []).filter((q) => q.group_id !== ticket.group_id)
  return (
    <div className="card settings-form" aria-label="Ticket actions">
      <label>
        Status
        <select
          value={closed ? "CLOSED" : ticket.status}
          disabled={closed || act.isPending}
          onChange={(e) => act.mutate({ kind: "status", status: e.target.value as (typeof OPEN_STATUSES)[number] })}
        >
          {OPEN_STATUSES.map((s) => <option key={s} value={s}>{s.replace("_", " ").toLowerCase()}</option>)}
          {closed && <option value="CLOSED">closed</option>}
        </select>
      </label>
      <div className="inline-form">
        <label>
          Assignee <input type="email" value={assignee} onChange={(e) => setAssignee(e.target.value)} disabled={closed} placeholder="someone@example.com" />
        </label>
        <button
          type="button"
          disabled={closed || act.isPending || assignee.trim() === ""}
          onClick={() => act.mutate({ kind: "assign", email: assignee.trim() })}
        >
          Assign
        </button>
        <button
          type="button"
          disabled={closed || act.isPending || ticket.assignee_email === null}
          onClick={() => {
            setAssignee("")
            act.mutate({ kind: "assign", email: null })
          }}
        >
          Unassign
        </button>
      </div>
      {others.length > 0 && (
        <div className="inline-form">
          <label>
            Move to
            <select value={target} onChange={(e) => setTarget(e.target.value)} disabled={closed}>
              <option value="">another queue</option>
              {others.map((q) => <option key={q.id} value={q.group_id}>{q.name}</option>)}
            </select>
          </label>
          <button type="button" disabled={closed || target === "" || act.isPending} onClick={() => act.mutate({ kind: "move", group: target })}>Move</button>
        </div>
      )}
      {!closed && (
        <div className="inline-form">
          <label>
            Resolution <input value={resolution} onChange={(e) => setResolution(e.target.value)} />
          </label>
          <button type="button" className="primary" disabled={act.isPending} onClick={() => act.mutate({ kind: "close", resolution })}>Close ticket</button>
        </div>
      )}
      <button type="button" className="danger" disabled={act.isPending} onClick={() => window.confirm("Delete this ticket?") && act.mutate({ kind: "delete" })}>
        Delete
      </button>
      {act.error !== null && <ErrorState error={act.error} />}
    </div>
  )
}
