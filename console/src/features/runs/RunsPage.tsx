import { useMutation, useQueryClient } from "@tanstack/react-query"
import { Link, useNavigate, useSearch } from "@tanstack/react-router"
import { useState } from "react"
import { api } from "../../api/client"
import { allows, useSession } from "../../api/session"
import { duration, shortId, StatusBadge, When } from "../../ui/Bits"
import { Empty, Query } from "../../ui/States"
import { RunFilters } from "./RunFilters"
import { TERMINAL, useRunHistory } from "./runsApi"

/** Every run of the workspace, newest (or oldest) first: filters, cursor pages, and bulk cancel for admins. */
export const RunsPage = () => {
  const search = useSearch({ from: "/app/runs" })
  const navigate = useNavigate()
  const session = useSession()
  const history = useRunHistory(search)
  const queryClient = useQueryClient()
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  const canCancel = allows(session.data?.user.role, "administerRuns")
  const oldestFirst = search.order === "oldest"
  const cancel = useMutation({
    mutationFn: async (ids: ReadonlyArray<string>) => {
      const results = await Promise.allSettled(ids.map((id) => api((c) => c.runs.cancel({ path: { id } }))))
      return results.filter((r) => r.status === "rejected").length
    },
    onSuccess: () => {
      setSelected(new Set())
      return queryClient.invalidateQueries({ queryKey: ["runs"] })
    }
  })
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s)
      if (next.has(id)) next.delete(id)
      else next.add(id)
      return next
    })

  return (
    <section aria-labelledby="runs-title">
      <div className="page-head">
        <h1 id="runs-title">Runs</h1>
        {canCancel && (
          <button type="button" className="danger" disabled={selected.size === 0 || cancel.isPending} onClick={() => cancel.mutate([...selected])}>
            Cancel {selected.size > 0 ? selected.size : ""} selected
          </button>
        )}
      </div>
      <RunFilters search={search} />
      {cancel.data !== undefined && cancel.data > 0 && <p role="status">{cancel.data} of the runs had already ended.</p>}
      <Query query={history} empty={(page) => page.items.length === 0 ? <Empty>No runs match these filters.</Empty> : undefined}>
        {(page) => (
          <>
            <table className="grid">
              <thead>
                <tr>
                  {canCancel && (
                    <th scope="col">
                      <span className="visually-hidden">Select</span>
                    </th>
                  )}
                  <th scope="col">Run</th>
                  <th scope="col">AI Employee</th>
                  <th scope="col">Status</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Version</th>
                  <th scope="col" aria-sort={oldestFirst ? "ascending" : "descending"}>
                    <button
                      type="button"
                      className="sort"
                      onClick={() => void navigate({ to: "/runs", search: { ...search, cursor: undefined, order: oldestFirst ? undefined : "oldest" } })}
                    >
                      Started {oldestFirst ? "↑" : "↓"}
                      <span className="visually-hidden">{oldestFirst ? ", oldest first" : ", newest first"}</span>
                    </button>
                  </th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((run) => (
                  <tr key={run.id}>
                    {canCancel && (
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`Select run ${shortId(run.id)}`}
                          disabled={TERMINAL.has(run.status)}
                          checked={selected.has(run.id)}
                          onChange={() => toggle(run.id)}
                        />
                      </td>
                    )}
                    <td>
                      <Link to="/runs/$runId" params={{ runId: run.id }} className="mono">{shortId(run.id)}</Link>
                      {run.parent_run_id !== undefined && <span className="muted">· child</span>}
                    </td>
                    <td>
                      <Link to="/ai-employees/$employeeId" params={{ employeeId: run.workflow_id }}>{run.workflow_name}</Link>
                    </td>
                    <td>
                      <StatusBadge status={run.status} />
                    </td>
                    <td>{run.trigger_type}</td>
                    <td>v{run.version}</td>
                    <td>
                      <When at={run.created_at} />
                    </td>
                    <td>{duration(run.started_at, run.finished_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <nav className="pager" aria-label="Pages">
              <button
                type="button"
                disabled={search.cursor === undefined}
                onClick={() => void navigate({ to: "/runs", search: { ...search, cursor: undefined } })}
              >
                First page
              </button>
              <button
                type="button"
                disabled={page.next_cursor === null}
                onClick={() => page.next_cursor !== null && void navigate({ to: "/runs", search: { ...search, cursor: page.next_cursor } })}
              >
                Next page
              </button>
            </nav>
          </>
        )}
      </Query>
    </section>
  )
}
