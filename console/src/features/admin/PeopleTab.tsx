import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { Role } from "../../../../schemas/Roles"
import { api } from "../../api/client"
import { useSession } from "../../api/session"
import { StatusBadge } from "../../ui/Bits"
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
        <input
          type="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          minLength={8}
          placeholder="Optional"
          title="Without a password, they sign in with a code sent by email"
        />
      </label>
      <button type="submit" className="primary" disabled={add.isPending}>Add</button>
      {add.error !== null && <ErrorState error={add.error} />}
    </form>
  )
}

type Change = { readonly id: string; readonly role?: RoleName; readonly status?: "active" | "disabled"; readonly remove?: true }

/** What changing one's own membership does, asked before it is sent. */
const selfWarning = (c: Change) =>
  c.remove === true
    ? "Remove yourself from this workspace? You will be signed out of it."
    : c.status === "disabled"
    ? "Disable your own account in this workspace? You will be signed out of it."
    : `Change your own role to ${c.role ?? ""}? You may lose access to this page.`

/**
 * The workspace's members: their role and status changed, members added and removed. The server
 * keeps the workspace's last holder of its highest admin role (409 LAST_ADMIN, shown here).
 */
export const PeopleTab = () => {
  const queryClient = useQueryClient()
  const me = useSession().data?.user.id
  const users = useQuery({ queryKey: ["admin", "users"], queryFn: () => api((c) => c.users.list({ urlParams: { page: 1, page_size: 100 } })) })
  const change = useMutation({
    mutationFn: (a: Change) =>
      a.remove === true
        ? api((c) => c.users.remove({ path: { id: a.id as never } })).then(() => undefined)
        : api((c) =>
          c.users.update({
            path: { id: a.id as never },
            payload: { ...(a.role !== undefined ? { role: a.role } : {}), ...(a.status !== undefined ? { status: a.status } : {}) }
          })
        ),
    onSuccess: (_, a) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ["admin", "users"] }),
        a.id === me ? queryClient.invalidateQueries({ queryKey: ["me"] }) : undefined
      ])
  })
  const submit = (c: Change) => {
    if (c.id === me && !window.confirm(selfWarning(c))) return
    change.mutate(c)
  }
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
                  <td>
                    {u.name}
                    {u.id === me && <span className="muted">{" (you)"}</span>}
                  </td>
                  <td>{u.email}</td>
                  <td>
                    <select
                      aria-label={`Role of ${u.email}`}
                      value={u.role}
                      disabled={change.isPending}
                      onChange={(e) => submit({ id: u.id, role: e.target.value as RoleName })}
                    >
                      {Role.literals.map((r) => <option key={r} value={r}>{r}</option>)}
                    </select>
                  </td>
                  <td>
                    <StatusBadge status={u.status} />{" "}
                    <button
                      type="button"
                      disabled={change.isPending}
                      onClick={() => submit({ id: u.id, status: u.status === "active" ? "disabled" : "active" })}
                    >
                      {u.status === "active" ? "Disable" : "Enable"}
                    </button>
                  </td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      disabled={change.isPending}
                      onClick={() => (u.id === me || window.confirm(`Remove ${u.email} from this workspace?`)) && submit({ id: u.id, remove: true })}
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
