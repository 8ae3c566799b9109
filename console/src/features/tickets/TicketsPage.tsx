import { useQuery } from "@tanstack/react-query"
import { Link, useNavigate, useSearch } from "@tanstack/react-router"
import { api, ApiError } from "../../api/client"
import { StatusBadge, When } from "../../ui/Bits"
import { Empty, Query } from "../../ui/States"
import { TicketList } from "./TicketList"
import { queuesQuery } from "./ticketsApi"
import "./tickets.css"

const SCOPES = ["created", "assigned", "commented"] as const

/** The caller's own tickets across their queues: raised by them, assigned to them, or commented on. */
const MyTickets = ({ scope }: { readonly scope: (typeof SCOPES)[number] }) => {
  const navigate = useNavigate()
  const mine = useQuery({ queryKey: ["tickets", "mine", scope], queryFn: () => api((c) => c.ticketing.myTickets({ urlParams: { scope } })) })
  return (
    <div>
      <div className="filters">
        <label>
          Tickets I
          <select value={scope} onChange={(e) => void navigate({ to: "/tickets", search: { scope: e.target.value } })}>
            <option value="created">raised</option>
            <option value="assigned">am assigned</option>
            <option value="commented">commented on</option>
          </select>
        </label>
      </div>
      <Query query={mine} empty={(p) => (p.items.length === 0 ? <Empty>No ticket.</Empty> : undefined)}>
        {(p) => (
          <table className="grid" aria-label="My tickets">
            <thead>
              <tr>
                <th>#</th>
                <th>title</th>
                <th>queue</th>
                <th>status</th>
                <th>updated</th>
              </tr>
            </thead>
            <tbody>
              {p.items.map((t) => (
                <tr key={t.id}>
                  <td>{t.number}</td>
                  <td>
                    <Link to="/tickets/$groupId/$ticketId" params={{ groupId: t.group_id, ticketId: t.id }}>{t.title}</Link>
                  </td>
                  <td>{t.group_tag}</td>
                  <td>
                    <StatusBadge status={t.status.toLowerCase()} />
                  </td>
                  <td>
                    <When at={t.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Query>
    </div>
  )
}

/** Ticketing: the queues the caller may see, a queue's tickets, and the caller's own. */
export const TicketsPage = () => {
  const search = useSearch({ from: "/app/tickets" })
  const navigate = useNavigate()
  const queues = useQuery(queuesQuery)
  const scope = SCOPES.find((s) => s === search.scope) ?? "created"
  const { group, scope: _scope, ...filters } = search
  const off = queues.error instanceof ApiError && queues.error.status === 404
  return (
    <section aria-labelledby="tickets-title" className="tickets-page">
      <h1 id="tickets-title">Tickets</h1>
      {off
        ? <Empty>Ticketing is not turned on for this workspace: its admins turn it on (with user groups) in the workspace's settings.</Empty>
        : (
          <div className="tickets-layout">
            <nav aria-label="Queues" className="queues">
              <Link to="/tickets" search={{}} aria-current={group === undefined ? "page" : undefined}>My tickets</Link>
              <Query query={queues} empty={(l) => (l.queues.length === 0 ? <p className="muted small">No queue you can see.</p> : undefined)}>
                {(l) => (
                  <ul>
                    {l.queues.map((q) => (
                      <li key={q.id}>
                        <Link to="/tickets" search={{ group: q.group_id }} aria-current={group === q.group_id ? "page" : undefined}>{q.name}</Link>
                      </li>
                    ))}
                  </ul>
                )}
              </Query>
            </nav>
            <div>
              {group === undefined
                ? <MyTickets scope={scope} />
                : <TicketList key={group} groupId={group} filters={filters} setFilters={(f) => void navigate({ to: "/tickets", search: { group, ...f } })} />}
            </div>
          </div>
        )}
    </section>
  )
}
