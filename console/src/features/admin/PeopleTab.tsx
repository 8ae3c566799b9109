import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import type { User } from "../../../../schemas/Auth"
import { grantableBy, isAtLeast, type Role } from "../../../../schemas/Roles"
import { api } from "../../api/client"
import { useSession } from "../../api/session"
import { StatusBadge } from "../../ui/Bits"
import { Empty, ErrorState, Query } from "../../ui/States"

type RoleName = typeof Role.Type

const AddPerson = ({ grantable }: { readonly grantable: ReadonlyArray<RoleName> }) => {
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
          {grantable.map((r) => <option key={r} value={r}>{r}</option>)}
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

/** One member; `grantable` undefined when they rank above the caller, whose row is then read-only. */
const PersonRow = ({ person: u, mine, grantable, busy, submit }: {
  readonly person: User
  readonly mine: boolean
  readonly grantable: ReadonlyArray<RoleName> | undefined
  readonly busy: boolean
  readonly submit: (c: Change) => void
}) => (
  <tr>
    <td>
      {u.name}
      {mine && <span className="muted">{" (you)"}</span>}
    </td>
    <td>{u.email}</td>
    <td>
      {grantable === undefined
        ? u.role
        : (
          <select aria-label={`Role of ${u.email}`} value={u.role} disabled={busy} onChange={(e) => submit({ id: u.id, role: e.target.value as RoleName })}>
            {grantable.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        )}
    </td>
    <td>
      <StatusBadge status={u.status} /> {grantable !== undefined && (
        <button
          type="button"
          disabled={busy}
          onClick={() => submit({ id: u.id, status: u.status === "active" ? "disabled" : "active" })}
        >
          {u.status === "active" ? "Disable" : "Enable"}
        </button>
      )}
    </td>
    <td>
      {grantable === undefined
        ? <span className="muted">above your role</span>
        : (
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => (mine || window.confirm(`Remove ${u.email} from this workspace?`)) && submit({ id: u.id, remove: true })}
          >
            Remove
          </button>
        )}
    </td>
  </tr>
)

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
  const session = useSession().data?.user
  const me = session?.id
  // Nobody grants or edits above their own role (the server answers 403): such rows are read-only here.
  const myRole = session?.role ?? "no_access"
  const grantable = grantableBy(myRole)
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
      <AddPerson grantable={grantable} />
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
                <PersonRow
                  key={u.id}
                  person={u}
                  mine={u.id === me}
                  grantable={isAtLeast(myRole, u.role) ? grantable : undefined}
                  busy={change.isPending}
                  submit={submit}
                />
              ))}
            </tbody>
          </table>
        )}
      </Query>
    </div>
  )
}
