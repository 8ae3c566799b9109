import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Link, useParams } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import type { Ticket } from "../../../../schemas/Ticketing"
import { api } from "../../api/client"
import { StatusBadge, When } from "../../ui/Bits"
import { ErrorState, Query } from "../../ui/States"
import { TicketActions } from "./TicketActions"
import "./tickets.css"

/** Comments and internal notes, oldest first, and a new one. */
const Comments = ({ ticket }: { readonly ticket: Ticket }) => {
  const queryClient = useQueryClient()
  const path = { groupID: ticket.group_id, ticketID: ticket.id }
  const comments = useQuery({ queryKey: ["tickets", "comments", ticket.id], queryFn: () => api((c) => c.ticketing.comments({ path })) })
  const [body, setBody] = useState("")
  const [internal, setInternal] = useState(false)
  const add = useMutation({
    mutationFn: () => api((c) => c.ticketing.comment({ path, payload: { body, visibility: internal ? "internal" : "public" } })),
    onSuccess: async () => {
      setBody("")
      await queryClient.invalidateQueries({ queryKey: ["tickets"] })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    add.mutate()
  }
  return (
    <section aria-label="Comments">
      <h2>Comments</h2>
      <Query query={comments}>
        {(l) => (
          <ul className="comments">
            {l.items.map((c) => (
              <li key={c.id} className={c.visibility}>
                <div className="muted small">
                  {c.author_email} · <When at={c.created_at} />
                  {c.visibility === "internal" && " · internal note"}
                </div>
                <div className="description">{c.body}</div>
              </li>
            ))}
          </ul>
        )}
      </Query>
      <form onSubmit={submit} className="settings-form">
        <label>
          Comment <textarea rows={3} value={body} onChange={(e) => setBody(e.target.value)} />
        </label>
        <label className="check">
          <input type="checkbox" checked={internal} onChange={(e) => setInternal(e.target.checked)} /> Internal note (the requester does not see it)
        </label>
        {add.error !== null && <ErrorState error={add.error} />}
        <button type="submit" className="primary" disabled={add.isPending || body.trim() === "" || ticket.status === "CLOSED"}>Add comment</button>
      </form>
    </section>
  )
}

const Timeline = ({ ticket }: { readonly ticket: Ticket }) => {
  const events = useQuery({
    queryKey: ["tickets", "events", ticket.id, ticket.updated_at],
    queryFn: () => api((c) => c.ticketing.events({ path: { groupID: ticket.group_id, ticketID: ticket.id } }))
  })
  return (
    <section aria-label="Activity">
      <h2>Activity</h2>
      <Query query={events}>
        {(l) => (
          <ol className="timeline">
            {l.items.map((e, i) => (
              <li key={i}>
                <When at={e.created_at} /> · {e.actor}
                {e.actor_type !== "user" && ` (${e.actor_type.replace("_", " ")})`}:{" "}
                {e.kind === "field_change" ? `${e.field ?? "field"} ${e.old_value ?? "—"} → ${e.new_value ?? "—"}` : e.kind.replace("_", " ")}
              </li>
            ))}
          </ol>
        )}
      </Query>
    </section>
  )
}

const SubTickets = ({ ticket }: { readonly ticket: Ticket }) => {
  const queryClient = useQueryClient()
  const path = { groupID: ticket.group_id, ticketID: ticket.id }
  const children = useQuery({ queryKey: ["tickets", "children", ticket.id], queryFn: () => api((c) => c.ticketing.children({ path })) })
  const [title, setTitle] = useState("")
  const add = useMutation({
    mutationFn: () => api((c) => c.ticketing.subticket({ path, payload: { title, description: "", priority: "MEDIUM", tags: [] } })),
    onSuccess: async () => {
      setTitle("")
      await queryClient.invalidateQueries({ queryKey: ["tickets", "children", ticket.id] })
    }
  })
  return (
    <section aria-label="Sub-tickets">
      <h2>Sub-tickets</h2>
      <Query query={children}>
        {(p) => (
          <ul>
            {p.items.map((t) => (
              <li key={t.id}>
                <Link to="/tickets/$groupId/$ticketId" params={{ groupId: t.group_id, ticketId: t.id }}>#{t.number} {t.title}</Link>{" "}
                <StatusBadge status={t.status.toLowerCase()} />
              </li>
            ))}
          </ul>
        )}
      </Query>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault()
          add.mutate()
        }}
      >
        <label>
          Sub-ticket title <input value={title} onChange={(e) => setTitle(e.target.value)} />
        </label>
        <button type="submit" disabled={add.isPending || title.trim() === ""}>Raise sub-ticket</button>
      </form>
      {add.error !== null && <ErrorState error={add.error} />}
    </section>
  )
}

/** One ticket: what it says, its comments and notes, its activity, its sub-tickets, and what can be done to it. */
export const TicketPage = () => {
  const { groupId, ticketId } = useParams({ from: "/app/tickets/$groupId/$ticketId" })
  const ticket = useQuery({
    queryKey: ["tickets", "ticket", groupId, ticketId],
    queryFn: () => api((c) => c.ticketing.ticket({ path: { groupID: groupId, ticketID: ticketId } }))
  })
  return (
    <Query query={ticket}>
      {(t) => (
        <section aria-labelledby="ticket-title">
          <p className="muted">
            <Link to="/tickets" search={{ group: t.group_id }}>{t.group_tag}</Link> · #{t.number}
          </p>
          <div className="page-head">
            <h1 id="ticket-title">{t.title}</h1>
            <StatusBadge status={t.status.toLowerCase()} />
          </div>
          <div className="ticket-grid">
            <div>
              <p className="description">{t.description === "" ? <span className="muted">No description.</span> : t.description}</p>
              {t.resolution !== null && <p className="notice ok">Resolution: {t.resolution}</p>}
              <Comments ticket={t} />
              <SubTickets ticket={t} />
              <Timeline ticket={t} />
            </div>
            <aside className="ticket-side">
              <dl className="output-fields">
                <div>
                  <dt>Priority</dt>
                  <dd>{t.priority.toLowerCase()}</dd>
                </div>
                <div>
                  <dt>Requester</dt>
                  <dd>{t.requester_email}</dd>
                </div>
                <div>
                  <dt>Assignee</dt>
                  <dd>{t.assignee_email ?? "—"}</dd>
                </div>
                <div>
                  <dt>Created</dt>
                  <dd>
                    <When at={t.created_at} />
                  </dd>
                </div>
              </dl>
              <TicketActions key={`${t.id}-${t.updated_at.toString()}`} ticket={t} />
            </aside>
          </div>
        </section>
      )}
    </Query>
  )
}
