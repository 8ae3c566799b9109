import { useQuery } from "@tanstack/react-query"
import { Link, useNavigate, useSearch } from "@tanstack/react-router"
import { useState } from "react"
import { InteractionType } from "../../../../schemas/Workflow"
import { api } from "../../api/client"
import { allows, useSession } from "../../api/session"
import { StatusBadge, When } from "../../ui/Bits"
import { Empty, Query } from "../../ui/States"
import { CreateEmployee } from "./CreateEmployee"

/** The workspace's AI Employees: search, interaction type, archived ones. */
export const EmployeesPage = () => {
  const search = useSearch({ from: "/app/ai-employees" })
  const navigate = useNavigate()
  const session = useSession()
  const [creating, setCreating] = useState(false)
  const list = useQuery({
    queryKey: ["ai-employees", search],
    queryFn: () =>
      api((c) =>
        c.workflows.list({
          urlParams: {
            page_size: 100,
            archived: search.archived === "true",
            ...(search.q !== undefined ? { q: search.q } : {}),
            ...(search.interaction_type !== undefined ? { interaction_type: search.interaction_type as never } : {})
          }
        })
      ),
    placeholderData: (previous) => previous
  })
  const set = (key: string, value: string) => void navigate({ to: "/ai-employees", search: { ...search, [key]: value === "" ? undefined : value } })
  return (
    <section aria-labelledby="aie-title">
      <div className="page-head">
        <h1 id="aie-title">AI Employees</h1>
        {allows(session.data?.user.role, "build") && !creating && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>New AI Employee</button>
        )}
      </div>
      {creating && <CreateEmployee onClose={() => setCreating(false)} />}
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search <input type="search" defaultValue={search.q ?? ""} onChange={(e) => set("q", e.target.value)} placeholder="Name or description" />
        </label>
        <label>
          Interaction
          <select value={search.interaction_type ?? ""} onChange={(e) => set("interaction_type", e.target.value)}>
            <option value="">Any</option>
            {InteractionType.literals.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={search.archived === "true"} onChange={(e) => set("archived", e.target.checked ? "true" : "")} /> Archived
        </label>
      </form>
      <Query query={list} empty={(p) => p.items.length === 0 ? <Empty>No AI Employee matches.</Empty> : undefined}>
        {(p) => (
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Interaction</th>
                <th scope="col">Status</th>
                <th scope="col">Versions</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {p.items.map((w) => (
                <tr key={w.id}>
                  <td>
                    {w.icon !== undefined && <span className="aie-icon" aria-hidden="true">{w.icon}</span>}
                    <Link to="/ai-employees/$employeeId" params={{ employeeId: w.id }}>{w.name}</Link>
                    {w.category !== undefined && <span className="muted small">· {w.category}</span>}
                    {w.description !== undefined && <div className="muted">{w.description}</div>}
                  </td>
                  <td>{w.interaction_type}</td>
                  <td>
                    <StatusBadge status={w.builder_state === "unpublished_changes" ? "published" : w.builder_state} />
                    {w.builder_state === "unpublished_changes" && <span className="muted">· changes</span>}
                  </td>
                  <td>{w.active_version !== undefined ? `v${w.active_version} live` : "—"} · {w.latest_version} saved</td>
                  <td>
                    <When at={w.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Query>
    </section>
  )
}
