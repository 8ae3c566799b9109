import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Link, useNavigate } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import type { Workflow } from "../../../../schemas/Workflow"
import { api } from "../../api/client"
import { allows, useSession } from "../../api/session"
import { shortId, StatusBadge, When } from "../../ui/Bits"
import { ErrorState, Query } from "../../ui/States"

type Item = Awaited<ReturnType<typeof listVersions>>["items"][number]

const listVersions = (id: string) => api((c) => c.aiEmployees.versions({ path: { id: id as never }, urlParams: { page: 1, page_size: 100 } }))

const Rename = ({ workflowId, version, onDone }: { readonly workflowId: string; readonly version: Item; readonly onDone: () => void }) => {
  const queryClient = useQueryClient()
  const [name, setName] = useState(version.name ?? "")
  const [description, setDescription] = useState(version.description ?? "")
  const save = useMutation({
    mutationFn: () =>
      api((c) =>
        c.aiEmployees.updateVersion({
          path: { id: workflowId as never, version: version.number },
          payload: { name: name.trim() === "" ? null : name.trim(), description: description.trim() === "" ? null : description.trim() }
        })
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["ai-employee", workflowId, "versions"] })
      onDone()
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    save.mutate()
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label={`Rename version ${version.number}`}>
      <label>
        Name <input value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Description <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <button type="submit" className="primary" disabled={save.isPending}>Save</button>
      <button type="button" onClick={onDone}>Cancel</button>
      {save.error !== null && <ErrorState error={save.error} />}
    </form>
  )
}

const who = (name: string | undefined, id: string | null | undefined, me: string | undefined) =>
  id === null || id === undefined ? "the platform" : id === me ? "you" : name ?? `a former member (${shortId(id)})`

/**
 * The version history, newest first: names, who saved and published each and when, which is
 * live. Builders rename, delete (not the live one), revert (a new draft with the version's DAG,
 * configuration and knowledge, the knowledge rolled back when it is published), publish the latest
 * draft, and pick two versions to compare.
 */
export const VersionsPanel = ({ workflow }: { readonly workflow: Workflow }) => {
  const session = useSession()
  const me = session.data?.user.id
  const canWrite = allows(session.data?.user.role, "build") && workflow.adopted_at === undefined && !workflow.archived
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [picked, setPicked] = useState<ReadonlyArray<number>>([])
  const [renaming, setRenaming] = useState<number | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const versions = useQuery({ queryKey: ["ai-employee", workflow.id, "versions"], queryFn: () => listVersions(workflow.id) })
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ["ai-employee", workflow.id] })
    void queryClient.invalidateQueries({ queryKey: ["ai-employees"] })
  }
  const remove = useMutation({
    mutationFn: (n: number) => api((c) => c.aiEmployees.deleteVersion({ path: { id: workflow.id, version: n } })),
    onSuccess: (_, n) => {
      setNotice(`Version ${n} deleted`)
      refresh()
    }
  })
  const revert = useMutation({
    mutationFn: (n: number) => api((c) => c.aiEmployees.revert({ path: { id: workflow.id, version: n } })),
    onSuccess: (draft) => {
      setNotice(
        `Version ${draft.reverted_from} staged as draft version ${draft.number}: the live version serves until you publish it, and publishing restores its knowledge too`
      )
      refresh()
    }
  })
  const publish = useMutation({
    mutationFn: () => api((c) => c.aiEmployees.publish({ path: { id: workflow.id } })),
    onSuccess: (v) => {
      setNotice(
        `Version ${v.number} is live${
          v.data_revert_dispatch !== undefined
            ? `; knowledge rollback ${v.data_revert_dispatch === "ok" ? "done" : "failed (the DAG is live; retry the revert)"}`
            : ""
        }${v.warnings.length > 0 ? ` · ${v.warnings.map((w) => w.message).join("; ")}` : ""}`
      )
      refresh()
    }
  })
  const toggle = (n: number) => setPicked((p) => (p.includes(n) ? p.filter((x) => x !== n) : [...p, n].slice(-2)))
  const failure = remove.error ?? revert.error ?? publish.error
  return (
    <Query query={versions}>
      {(page) => (
        <>
          <div className="toolbar">
            <button
              type="button"
              disabled={picked.length !== 2}
              onClick={() => {
                const [a, b] = [...picked].sort((x, y) => x - y)
                void navigate({ to: "/ai-employees/$employeeId/compare", params: { employeeId: workflow.id }, search: { from: String(a), to: String(b) } })
              }}
            >
              Compare the two picked
            </button>
            <span className="muted small">
              {picked.length === 2 ? `v${Math.min(...picked)} with v${Math.max(...picked)}` : "Pick two versions to compare them"}
            </span>
            <span className="spacer" />
            {canWrite && workflow.builder_state !== "published" && (
              <button
                type="button"
                className="primary"
                disabled={publish.isPending}
                onClick={() => publish.mutate()}
              >
                Publish version {workflow.latest_version}
              </button>
            )}
          </div>
          {notice !== undefined && <p className="notice ok" role="status">{notice}</p>}
          {failure !== null && <ErrorState error={failure} />}
          <table className="grid versions">
            <thead>
              <tr>
                <th scope="col">Compare</th>
                <th scope="col">Version</th>
                <th scope="col">State</th>
                <th scope="col">Saved</th>
                <th scope="col">Published</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((v) => (
                <tr key={v.number} data-version={v.number}>
                  <td>
                    <input type="checkbox" aria-label={`Pick version ${v.number}`} checked={picked.includes(v.number)} onChange={() => toggle(v.number)} />
                  </td>
                  <td>
                    <strong>v{v.number}</strong> {v.name !== undefined && <span>{v.name}</span>}
                    {v.description !== undefined && <div className="muted small">{v.description}</div>}
                    {v.reverted_from !== undefined && <div className="muted small">reverted from v{v.reverted_from}</div>}
                    {renaming === v.number && <Rename workflowId={workflow.id} version={v} onDone={() => setRenaming(undefined)} />}
                  </td>
                  <td>
                    {v.active ? <StatusBadge status="published" /> : v.published_at !== undefined ? "published earlier" : <StatusBadge status="draft" />}
                    {v.active && <span className="muted small">live</span>}
                  </td>
                  <td>
                    <When at={v.created_at} /> <span className="muted small">by {who(v.saved_by_name, v.saved_by, me)}</span>
                  </td>
                  <td>
                    {v.published_at !== undefined
                      ? (
                        <>
                          <When at={v.published_at} /> <span className="muted small">by {who(v.published_by_name, v.published_by, me)}</span>
                        </>
                      )
                      : "—"}
                  </td>
                  <td className="actions">
                    <Link to="/ai-employees/$employeeId/compare" params={{ employeeId: workflow.id }} search={{ to: String(v.number) }}>View</Link>
                    {canWrite && <button type="button" className="link" onClick={() => setRenaming(v.number)}>Rename</button>}
                    {canWrite && (
                      <button
                        type="button"
                        className="link"
                        disabled={revert.isPending}
                        onClick={() =>
                          window.confirm(`Stage version ${v.number} as a new draft? Its knowledge-base content comes back when that draft is published.`) &&
                          revert.mutate(v.number)}
                      >
                        Revert to this
                      </button>
                    )}
                    {canWrite && !v.active && (
                      <button
                        type="button"
                        className="link danger"
                        disabled={remove.isPending}
                        onClick={() => window.confirm(`Delete version ${v.number}? This cannot be undone.`) && remove.mutate(v.number)}
                      >
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Query>
  )
}
