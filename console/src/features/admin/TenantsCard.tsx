import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { api } from "../../api/client"
import { When } from "../../ui/Bits"
import { ErrorState, Query } from "../../ui/States"

/** For an env_admin: every workspace of the platform, and a new one (people then switch into it from the header). */
export const TenantsCard = () => {
  const queryClient = useQueryClient()
  const tenants = useQuery({ queryKey: ["admin", "tenants"], queryFn: () => api((c) => c.tenants.list({ urlParams: { page: 1, page_size: 100 } })) })
  const [name, setName] = useState("")
  const [slug, setSlug] = useState("")
  const create = useMutation({
    mutationFn: () => api((c) => c.tenants.create({ payload: { name, slug: slug } })),
    onSuccess: async () => {
      setName("")
      setSlug("")
      await queryClient.invalidateQueries({ queryKey: ["admin", "tenants"] })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate()
  }
  return (
    <section className="card" aria-label="Workspaces">
      <h3>Workspaces of the platform</h3>
      <Query query={tenants}>
        {(p) => (
          <table className="grid">
            <thead>
              <tr>
                <th>name</th>
                <th>slug</th>
                <th>created</th>
              </tr>
            </thead>
            <tbody>
              {p.items.map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td className="mono">{t.slug}</td>
                  <td>
                    <When at={t.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Query>
      <form className="filters" onSubmit={submit} aria-label="New workspace">
        <label>
          Workspace name <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label>
          Slug <input value={slug} onChange={(e) => setSlug(e.target.value)} required placeholder="acme" />
        </label>
        <button type="submit" disabled={create.isPending}>Create workspace</button>
      </form>
      {create.error !== null && <ErrorState error={create.error} />}
    </section>
  )
}
