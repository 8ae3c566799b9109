import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useNavigate } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import { api } from "../../api/client"
import { When } from "../../ui/Bits"
import { Empty, ErrorState, Query } from "../../ui/States"

/** The caller's documents, newest change first; a new one started. */
export const DocumentsPage = () => {
  const navigate = useNavigate()
  const docs = useQuery({ queryKey: ["documents", "list"], queryFn: () => api((c) => c.docgen.list({ urlParams: { limit: 100, offset: 0 } })) })
  const [title, setTitle] = useState("")
  const create = useMutation({
    mutationFn: () =>
      api((c) =>
        c.docgen.create({ payload: { title, content_html: `<section id="intro"><h2>${title.replace(/[<>&]/g, "")}</h2><p></p></section>`, metadata: {} } })
      ),
    onSuccess: (d) => void navigate({ to: "/documents/$docId", params: { docId: d.id } })
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate()
  }
  return (
    <section aria-labelledby="docs-title">
      <h1 id="docs-title">Documents</h1>
      <form className="filters" onSubmit={submit} aria-label="New document">
        <label>
          Title <input value={title} onChange={(e) => setTitle(e.target.value)} required />
        </label>
        <button type="submit" className="primary" disabled={create.isPending || title.trim() === ""}>New document</button>
        {create.error !== null && <ErrorState error={create.error} />}
      </form>
      <Query query={docs} empty={(l) => (l.items.length === 0 ? <Empty>No document yet.</Empty> : undefined)}>
        {(l) => (
          <table className="grid" aria-label="Documents">
            <thead>
              <tr>
                <th>title</th>
                <th>type</th>
                <th>version</th>
                <th>changed</th>
              </tr>
            </thead>
            <tbody>
              {l.items.map((d) => (
                <tr key={d.id}>
                  <td>
                    <Link to="/documents/$docId" params={{ docId: d.id }}>{d.title}</Link>
                  </td>
                  <td>{d.type ?? "—"}</td>
                  <td>{d.version}</td>
                  <td>
                    <When at={d.updated_at} />
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
