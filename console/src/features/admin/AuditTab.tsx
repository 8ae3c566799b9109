import { useQuery } from "@tanstack/react-query"
import { useState } from "react"
import { api } from "../../api/client"
import { When } from "../../ui/Bits"
import { Empty, Query } from "../../ui/States"

const PAGE = 50

/** The workspace's audit log, newest first. */
export const AuditTab = () => {
  const [page, setPage] = useState(1)
  const events = useQuery({
    queryKey: ["admin", "audit", page],
    queryFn: () => api((c) => c.audit.list({ urlParams: { page, page_size: PAGE } })),
    placeholderData: (previous) => previous
  })
  return (
    <Query query={events} empty={(p) => (p.items.length === 0 ? <Empty>Nothing recorded yet.</Empty> : undefined)}>
      {(p) => (
        <>
          <table className="grid" aria-label="Audit log">
            <thead>
              <tr>
                <th>when</th>
                <th>action</th>
                <th>resource</th>
                <th>by</th>
                <th>details</th>
              </tr>
            </thead>
            <tbody>
              {p.items.map((e) => (
                <tr key={e.id}>
                  <td>
                    <When at={e.created_at} />
                  </td>
                  <td className="mono">{e.action}</td>
                  <td>{e.resource_type}{e.resource_id !== null && <span className="mono small">{e.resource_id.slice(-8)}</span>}</td>
                  <td className="mono small">
                    {e.actor_user_id?.slice(-8) ?? (e.actor_api_key_id !== null ? `key ${e.actor_api_key_id.slice(-8)}` : "platform")}
                  </td>
                  <td className="mono small">{e.details === null || e.details === undefined ? "" : JSON.stringify(e.details).slice(0, 160)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="pager">
            <button type="button" disabled={page === 1} onClick={() => setPage(page - 1)}>Newer</button>
            <span>Page {page} of {Math.max(1, Math.ceil(p.total / PAGE))}</span>
            <button type="button" disabled={!p.has_more} onClick={() => setPage(page + 1)}>Older</button>
          </div>
        </>
      )}
    </Query>
  )
}
