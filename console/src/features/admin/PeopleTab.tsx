import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { Role } from "../../../../schemas/Roles"
import { api } from "../../api/client"
import { Empty, ErrorState, Query } from "../../ui/States"

type RoleName = typeof Role.Type

const AddPerson = () => {
  const queryClient = useQueryClient()
  const [email, setEmail] = useState("")
  const [name, setName] = useState("")
  const [role, setRole] = useState<RoleName>("user")
  const [password, setPassword] = useState("")
  const add = useMutation({
    mutationFn: () => api((c) => c.users.create({ payload: { email, name, role, ...(password !== "" ? { password } : {}) } })),
    onSuccess: async () => {
      setEmail("")
      setName("")
      setPassword("")
      await queryClient.invalidateQueries({ queryKey: ["admin", "users"] })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    add.mutate()
  }
  return (
    <form className="filters" onSubmit={submit} aria-label="Add a person">
      <label>
        Email <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
      </label>
      <label>
        Name <input value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <label>
        Role
        <select value={role} onChange={(e) => setRole(e.target.value as RoleName)}>
          {Role.literals.map((r) => <option key={r} value={r}>{r}</option>)}
        </select>
      </label>
      <label>
        Password{" "}
        <input type="password" value={password} onChange={(e) => setPassword(e.target.value)} minLength={8} placeholder="Optional: or sign in by code" />
      </label>
      <button type="submit" className="primary" disabled={add.isPending}>Add</button>
      {add.error !== null && <ErrorState error={add.error} />}
    </form>
  )
}

/** The workspace's members: their role and status changed, members added and removed. */
export const PeopleTab = () => {
  const queryClient = useQueryClient()
  const users = useQuery({ queryKey: ["admin", "users"], queryFn: () => api((c) => c.users.list({ urlParams: { page: 1, page_size: 100 } })) })
  const change = useMutation({
    mutationFn: (a: { readonly id: string; readonly role?: RoleName; readonly status?: "active" | "disabled"; readonly remove?: true }) =>
      a.remove === true
        ? api((c) => c.users.remove({ path: { id: a.id as never } })).then(() => undefined)
        : api((c) =>
          c.users.update({
            path: { id: a.id as never },
            payload: { ...(a.role !== undefined ? { role: a.role } : {}), ...(a.status !== undefined ? { status: a.status } : {}) }
          })
        ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "users"] })
  })
  return (
    <div>
      <AddPerson />
      {change.error !== null && <ErrorState error={change.error} />}
      <Query query={users} empty={(p) => (p.items.length === 0 ? <Empty>Nobody yet.</Empty> : undefined)}>
        {(p) => (
          <table className="grid" aria-label="People">
            <thead>
              <tr>
                <th>name</th>
                <th>email</th>
                <th>role</th>
                <th>status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {p.items.map((u) => (
                <tr key={u.id}>
                  <td>{u.name}</td>
                  <td>{u.email}</td>
                  <td>
                    <select
                      aria-label={`Role of ${u.email}`}
                      value={u.role}
                      disabled={change.isPending}
                      onChange={(e) => change.mutate({ id: u.id, role: e.target.value as RoleName })}
                    >
                      {Role.literals.map((r) => <option key={r} value={r}>{r}</option>)}
                    </select>
                  </td>
                  <td>
                    <button
                      type="button"
                      disabled={change.isPending}
                      onClick={() => change.mutate({ id: u.id, status: u.status === "active" ? "disabled" : "active" })}
                    >
                      {u.status === "active" ? "Disable" : "Enable"}
                    </button>
                  </td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      disabled={change.isPending}
                      onClick={() => window.confirm(`Remove ${u.email} from this workspace?`) && change.mutate({ id: u.id, remove: true })}
                    >
                      Remove
                    </button>
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
