import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import type { McpServer } from "../../../../schemas/McpServer"
import { McpTransport } from "../../../../schemas/McpServer"
import { api } from "../../api/client"
import { StatusBadge, When } from "../../ui/Bits"
import { Empty, ErrorState, Query } from "../../ui/States"

/** A server's tools as discovered, for the admin's review before it may be used. */
const Tools = ({ server }: { readonly server: McpServer }) => {
  const tools = useQuery({
    queryKey: ["admin", "mcp", server.id, "tools", server.tools_refreshed_at],
    queryFn: () => api((c) => c.mcpServers.tools({ path: { id: server.id } }))
  })
  return (
    <Query
      query={tools}
      empty={(l) => (l.items.length === 0
        ? <p className="muted">No tool discovered{server.discovery_error !== null ? `: ${server.discovery_error}` : ""}.</p>
        : undefined)}
    >
      {(l) => (
        <ul aria-label={`Tools of ${server.name}`}>
          {l.items.map((t) => (
            <li key={t.name}>
              <strong className="mono">{t.name}</strong> {t.description}
            </li>
          ))}
        </ul>
      )}
    </Query>
  )
}

const Register = () => {
  const queryClient = useQueryClient()
  const [name, setName] = useState("")
  const [url, setUrl] = useState("")
  const [transport, setTransport] = useState<typeof McpTransport.Type>("streamable-http")
  const create = useMutation({
    mutationFn: () => api((c) => c.mcpServers.create({ payload: { name, server_url: url, transport, auth_type: "none" } })),
    onSuccess: async () => {
      setName("")
      setUrl("")
      await queryClient.invalidateQueries({ queryKey: ["admin", "mcp"] })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate()
  }
  return (
    <form className="filters" onSubmit={submit} aria-label="Register an MCP server">
      <label>
        Server name <input value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <label>
        URL <input value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://mcp.example.com/mcp" />
      </label>
      <label>
        Transport
        <select value={transport} onChange={(e) => setTransport(e.target.value as typeof McpTransport.Type)}>
          {McpTransport.literals.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
      </label>
      <button type="submit" className="primary" disabled={create.isPending}>Register</button>
      {create.error !== null && <ErrorState error={create.error} />}
    </form>
  )
}

/** MCP servers: registered ones wait for an admin's review of their tools, then are approved (active), disabled or enabled again. */
export const McpTab = () => {
  const queryClient = useQueryClient()
  const servers = useQuery({ queryKey: ["admin", "mcp"], queryFn: () => api((c) => c.mcpServers.list()) })
  const [open, setOpen] = useState<string | undefined>(undefined)
  const act = useMutation({
    mutationFn: (a: { readonly id: string; readonly kind: "activate" | "disable" | "enable" | "refresh" | "remove" }): Promise<unknown> =>
      a.kind === "activate"
        ? api((c) => c.mcpServers.activate({ path: { id: a.id } }))
        : a.kind === "disable"
        ? api((c) => c.mcpServers.disable({ path: { id: a.id } }))
        : a.kind === "enable"
        ? api((c) => c.mcpServers.enable({ path: { id: a.id } }))
        : a.kind === "refresh"
        ? api((c) => c.mcpServers.refreshTools({ path: { id: a.id } }))
        : api((c) => c.mcpServers.remove({ path: { id: a.id } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "mcp"] })
  })
  return (
    <div>
      <Register />
      {act.error !== null && <ErrorState error={act.error} />}
      <Query query={servers} empty={(l) => (l.items.length === 0 ? <Empty>No MCP server registered.</Empty> : undefined)}>
        {(l) => (
          <ul className="cards">
            {l.items.map((s) => (
              <li key={s.id} className="card" aria-label={s.name}>
                <header>
                  <strong>{s.name}</strong>
                  <StatusBadge status={s.status === "pending_review" ? "pending review" : s.status} />
                  <span className="muted small">
                    {s.server_url} · {s.tool_count} tools{s.tools_refreshed_at !== null && (
                      <>
                        · found <When at={s.tools_refreshed_at} />
                      </>
                    )}
                  </span>
                </header>
                <div className="card-actions">
                  <button type="button" aria-expanded={open === s.id} onClick={() => setOpen(open === s.id ? undefined : s.id)}>
                    {s.status === "pending_review" ? "Review tools" : "Tools"}
                  </button>
                  {s.status === "pending_review" && (
                    <button
                      type="button"
                      className="primary"
                      disabled={act.isPending}
                      onClick={() => act.mutate({ id: s.id, kind: "activate" })}
                    >
                      Approve
                    </button>
                  )}
                  {s.status === "active" && (
                    <button type="button" disabled={act.isPending} onClick={() => act.mutate({ id: s.id, kind: "disable" })}>Disable</button>
                  )}
                  {s.status === "disabled" && (
                    <button type="button" disabled={act.isPending} onClick={() => act.mutate({ id: s.id, kind: "enable" })}>Enable</button>
                  )}
                  <button type="button" disabled={act.isPending} onClick={() => act.mutate({ id: s.id, kind: "refresh" })}>Discover tools again</button>
                  <button
                    type="button"
                    className="danger"
                    disabled={act.isPending}
                    onClick={() => window.confirm(`Remove ${s.name}?`) && act.mutate({ id: s.id, kind: "remove" })}
                  >
                    Remove
                  </button>
                </div>
                {open === s.id && <Tools server={s} />}
              </li>
            ))}
          </ul>
        )}
      </Query>
    </div>
  )
}
