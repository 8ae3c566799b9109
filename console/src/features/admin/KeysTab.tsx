import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { OperationScope, ResourceScope } from "../../../../schemas/Auth"
import { api } from "../../api/client"
import { When } from "../../ui/Bits"
import { Empty, ErrorState, Query } from "../../ui/States"
import { Copyable } from "../triggers/WebhooksCard"

const OPERATIONS = OperationScope.value.literals
const RESOURCES = ResourceScope.value.literals

const toggle = <A extends string>(list: ReadonlyArray<A>, value: A) => (list.includes(value) ? list.filter((x) => x !== value) : [...list, value])

const NewKey = () => {
  const queryClient = useQueryClient()
  const [name, setName] = useState("")
  const [system, setSystem] = useState(false)
  const [operations, setOperations] = useState<ReadonlyArray<(typeof OPERATIONS)[number]>>([])
  const [resources, setResources] = useState<ReadonlyArray<(typeof RESOURCES)[number]>>([])
  const [expires, setExpires] = useState("")
  const create = useMutation({
    mutationFn: () =>
      api((c) =>
        c.apiKeys.create({
          payload: {
            name,
            key_type: system ? "system" : "user",
            operation_scope: operations.length === 0 ? null : operations,
            resource_scope: resources.length === 0 ? null : resources,
            ...(expires !== "" ? { expires_at: new Date(expires) } : {})
          }
        })
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "keys"] })
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate()
  }
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="New API key">
      <h3>New API key</h3>
      <label>
        Name <input value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <label className="check">
        <input type="checkbox" checked={system} onChange={(e) => setSystem(e.target.checked)} /> System key (a service principal with your role; admins)
      </label>
      <fieldset>
        <legend>Operations (none ticked: all)</legend>
        {OPERATIONS.map((o) => (
          <label key={o} className="check">
            <input type="checkbox" checked={operations.includes(o)} onChange={() => setOperations(toggle(operations, o))} /> {o}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Services (none ticked: all)</legend>
        {RESOURCES.map((r) => (
          <label key={r} className="check">
            <input type="checkbox" checked={resources.includes(r)} onChange={() => setResources(toggle(resources, r))} /> {r}
          </label>
        ))}
      </fieldset>
      <label>
        Expires <input type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
      </label>
      {create.error !== null && <ErrorState error={create.error} />}
      <button type="submit" className="primary" disabled={create.isPending || name.trim() === ""}>Create key</button>
      {create.data !== undefined && (
        <>
          <p className="notice ok" role="status">Copy the key now: it is shown only once.</p>
          <Copyable label="The new key" text={create.data.key} />
        </>
      )}
    </form>
  )
}

/** The workspace's API keys: made with their scopes (the secret shown once), revoked at once. */
export const KeysTab = () => {
  const queryClient = useQueryClient()
  const keys = useQuery({ queryKey: ["admin", "keys"], queryFn: () => api((c) => c.apiKeys.list({ urlParams: { page: 1, page_size: 100 } })) })
  const revoke = useMutation({
    mutationFn: (id: string) => api((c) => c.apiKeys.revoke({ path: { id: id as never } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "keys"] })
  })
  return (
    <div>
      <NewKey />
      {revoke.error !== null && <ErrorState error={revoke.error} />}
      <Query query={keys} empty={(p) => (p.items.length === 0 ? <Empty>No API key yet.</Empty> : undefined)}>
        {(p) => (
          <table className="grid" aria-label="API keys">
            <thead>
              <tr>
                <th>name</th>
                <th>key</th>
                <th>type</th>
                <th>scope</th>
                <th>last used</th>
                <th>status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {p.items.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td className="mono">{k.key_prefix}…</td>
                  <td>{k.widget !== null ? "chat widget" : k.key_type}</td>
                  <td className="small">
                    {k.widget !== null
                      ? `sites: ${k.widget.allowed_origins.join(", ")}`
                      : `${k.operation_scope?.join(", ") ?? "all operations"}; ${k.resource_scope?.join(", ") ?? "all services"}`}
                  </td>
                  <td>{k.last_used_at === null ? "never" : <When at={k.last_used_at} />}</td>
                  <td>{k.revoked ? "revoked" : k.expires_at !== null && k.expires_at.getTime() < Date.now() ? "expired" : "active"}</td>
                  <td>
                    {!k.revoked && (
                      <button
                        type="button"
                        className="danger"
                        disabled={revoke.isPending}
                        onClick={() => window.confirm(`Revoke ${k.name}?`) && revoke.mutate(k.id)}
                      >
                        Revoke
                      </button>
                    )}
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
