import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Link } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import { api } from "../../api/client"
import { allows, useSession } from "../../api/session"
import { When } from "../../ui/Bits"
import { Empty, ErrorState, Query } from "../../ui/States"

/** The workspace's knowledge bases: how many documents each holds; a new one. */
export const KnowledgePage = () => {
  const session = useSession()
  const queryClient = useQueryClient()
  const list = useQuery({ queryKey: ["knowledge-bases"], queryFn: () => api((c) => c.ingestion.listKbs({ urlParams: { page: 1, page_size: 100 } })) })
  const [name, setName] = useState("")
  const [description, setDescription] = useState("")
  const create = useMutation({
    mutationFn: () => api((c) => c.ingestion.createKb({ payload: { name: name.trim(), description: description.trim() } })),
    onSuccess: () => {
      setName("")
      setDescription("")
      void queryClient.invalidateQueries({ queryKey: ["knowledge-bases"] })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (name.trim() !== "") create.mutate()
  }
  return (
    <section aria-labelledby="kb-title">
      <h1 id="kb-title">Knowledge</h1>
      {allows(session.data?.user.role, "build") && (
        <form className="inline-form" onSubmit={submit} aria-label="New knowledge base">
          <label>
            Name <input value={name} onChange={(e) => setName(e.target.value)} required />
          </label>
          <label>
            Description <input value={description} onChange={(e) => setDescription(e.target.value)} />
          </label>
          <button type="submit" className="primary" disabled={create.isPending || name.trim() === ""}>New knowledge base</button>
        </form>
      )}
      {create.error !== null && <ErrorState error={create.error} />}
      <Query query={list} empty={(p) => (p.items.length === 0 ? <Empty>No knowledge base yet.</Empty> : undefined)}>
        {(p) => (
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Documents</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {p.items.map((kb) => (
                <tr key={kb.id}>
                  <td>
                    <Link to="/knowledge/$kbId" params={{ kbId: kb.id }}>{kb.name}</Link>
                    {kb.description !== "" && <div className="muted small">{kb.description}</div>}
                  </td>
                  <td>{kb.document_count}</td>
                  <td>
                    <When at={kb.updated_at} />
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
