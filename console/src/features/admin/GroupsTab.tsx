import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import type { UserGroup } from "../../../../schemas/Auth"
import { api } from "../../api/client"
import { Empty, ErrorState, Query } from "../../ui/States"

const Members = ({ group }: { readonly group: UserGroup }) => {
  const queryClient = useQueryClient()
  const members = useQuery({
    queryKey: ["admin", "members", group.id],
    queryFn: () => api((c) => c.groups.members({ path: { id: group.id }, urlParams: { page: 1, page_size: 100 } }))
  })
  const users = useQuery({ queryKey: ["admin", "users"], queryFn: () => api((c) => c.users.list({ urlParams: { page: 1, page_size: 100 } })) })
  const [userId, setUserId] = useState("")
  const [admin, setAdmin] = useState(false)
  const refresh = () =>
    Promise.all([queryClient.invalidateQueries({ queryKey: ["admin", "members", group.id] }), queryClient.invalidateQueries({ queryKey: ["admin", "groups"] })])
  const add = useMutation({
    mutationFn: () => api((c) => c.groups.addMember({ path: { id: group.id }, payload: { user_id: userId as never, is_group_admin: admin } })),
    onSuccess: refresh
  })
  const remove = useMutation({
    mutationFn: (user: string) => api((c) => c.groups.removeMember({ path: { id: group.id, user_id: user as never } })),
    onSuccess: refresh
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    add.mutate()
  }
  return (
    <div>
      <Query query={members}>
        {(m) => (
          <ul>
            {m.items.map((x) => (
              <li key={x.user_id}>
                {x.name} ({x.email}){x.is_group_admin && " · group admin"}{" "}
                <button type="button" className="link" onClick={() => remove.mutate(x.user_id)}>remove</button>
              </li>
            ))}
          </ul>
        )}
      </Query>
      <form className="inline-form" onSubmit={submit}>
        <label>
          Add
          <select value={userId} onChange={(e) => setUserId(e.target.value)}>
            <option value="">a member</option>
            {(users.data?.items ?? []).map((u) => <option key={u.id} value={u.id}>{u.name} ({u.email})</option>)}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} /> group admin
        </label>
        <button type="submit" disabled={userId === "" || add.isPending}>Add</button>
      </form>
      {(add.error ?? remove.error) !== null && <ErrorState error={add.error ?? remove.error} />}
    </div>
  )
}

/** User groups (nested) and their members. */
export const GroupsTab = () => {
  const queryClient = useQueryClient()
  const groups = useQuery({ queryKey: ["admin", "groups"], queryFn: () => api((c) => c.groups.list({ urlParams: { page: 1, page_size: 100 } })) })
  const [name, setName] = useState("")
  const [parent, setParent] = useState("")
  const [open, setOpen] = useState<string | undefined>(undefined)
  const create = useMutation({
    mutationFn: () => api((c) => c.groups.create({ payload: { name, parent_group_id: parent === "" ? null : parent as never } })),
    onSuccess: async () => {
      setName("")
      await queryClient.invalidateQueries({ queryKey: ["admin", "groups"] })
    }
  })
  const remove = useMutation({
    mutationFn: (id: string) => api((c) => c.groups.remove({ path: { id: id as never } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "groups"] })
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate()
  }
  const items = groups.data?.items ?? []
  return (
    <div>
      <form className="filters" onSubmit={submit} aria-label="New group">
        <label>
          Group name <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label>
          Inside
          <select value={parent} onChange={(e) => setParent(e.target.value)}>
            <option value="">no parent</option>
            {items.map((g) => <option key={g.id} value={g.id}>{g.name}</option>)}
          </select>
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>Create group</button>
        {create.error !== null && <ErrorState error={create.error} />}
      </form>
      <Query query={groups} empty={(p) => (p.items.length === 0 ? <Empty>No group yet (user groups must be on for the workspace).</Empty> : undefined)}>
        {(p) => (
          <ul className="cards">
            {p.items.map((g) => (
              <li key={g.id} className="card">
                <header>
                  <button type="button" className="link" aria-expanded={open === g.id} onClick={() => setOpen(open === g.id ? undefined : g.id)}>
                    {g.name}
                  </button>
                  <span className="muted small">
                    {g.member_count} members{g.parent_group_id !== null && ` · inside ${items.find((x) => x.id === g.parent_group_id)?.name ?? "a group"}`}
                  </span>
                  <button type="button" className="danger" onClick={() => window.confirm(`Delete ${g.name}?`) && remove.mutate(g.id)}>Delete</button>
                </header>
                {open === g.id && <Members group={g} />}
              </li>
            ))}
          </ul>
        )}
      </Query>
      {remove.error !== null && <ErrorState error={remove.error} />}
    </div>
  )
}
