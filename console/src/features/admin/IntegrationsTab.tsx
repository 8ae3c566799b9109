import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { Capability, type CatalogEntry, type TenantIntegration } from "../../../../schemas/Integration"
import { api, ApiError } from "../../api/client"
import { StatusBadge } from "../../ui/Bits"
import { Empty, ErrorState, Query } from "../../ui/States"

export const OAUTH_PENDING = "bp-oauth-integration"

/** Credentials for one capability of an install, as JSON (sealed by the platform, never shown again). */
const Credentials = ({ install }: { readonly install: TenantIntegration }) => {
  const queryClient = useQueryClient()
  const [capability, setCapability] = useState<typeof Capability.Type>("agent_tool")
  const [text, setText] = useState("{\n  \"api_key\": \"\"\n}")
  const [invalid, setInvalid] = useState(false)
  const put = useMutation({
    mutationFn: (credentials: Record<string, unknown>) =>
      api((c) => c.integrations.credentials({ path: { id: install.id }, payload: { capability, credentials } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "integrations"] })
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const parsed = ((): unknown => {
      try {
        return JSON.parse(text)
      } catch {
        return undefined
      }
    })()
    setInvalid(typeof parsed !== "object" || parsed === null)
    if (typeof parsed === "object" && parsed !== null) put.mutate(parsed as Record<string, unknown>)
  }
  return (
    <form onSubmit={submit} className="settings-form" aria-label={`Credentials of ${install.display_name}`}>
      <label>
        For
        <select value={capability} onChange={(e) => setCapability(e.target.value as typeof Capability.Type)}>
          {Capability.literals.map((c) => <option key={c} value={c}>{c.replace("_", " ")}</option>)}
        </select>
      </label>
      <label>
        Credentials (JSON) <textarea className="mono" rows={4} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      {invalid && <p className="error-text" role="alert">Credentials must be a JSON object</p>}
      {put.error !== null && <ErrorState error={put.error} />}
      {put.isSuccess && <p className="notice ok" role="status">Credentials saved (sealed)</p>}
      <button type="submit" disabled={put.isPending}>Save credentials</button>
    </form>
  )
}

/** The calling person's OAuth connection to the install: connected, or a way to connect and to disconnect. */
const Connection = ({ install }: { readonly install: TenantIntegration }) => {
  const queryClient = useQueryClient()
  const connection = useQuery({
    queryKey: ["admin", "integrations", install.id, "connection"],
    // None (404) is "not connected": an error would leave the last answer in place after a disconnect.
    queryFn: () =>
      api((c) => c.integrations.connection({ path: { id: install.id } })).catch((e: unknown) =>
        e instanceof ApiError && e.status === 404 ? null : Promise.reject(e)
      ),
    retry: false
  })
  const connect = useMutation({
    mutationFn: () =>
      api((c) => c.integrations.oauthAuthorize({ path: { id: install.id }, payload: { redirect_uri: `${location.origin}/integrations/oauth2/callback` } })),
    onSuccess: (a) => {
      sessionStorage.setItem(OAUTH_PENDING, install.id)
      location.assign(a.authorization_url)
    }
  })
  const revoke = useMutation({
    mutationFn: () => api((c) => c.integrations.revokeConnection({ path: { id: install.id } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "integrations", install.id, "connection"] })
  })
  const connected = connection.data?.connected === true
  return (
    <div className="inline-form">
      <span>{connected ? "Your account is connected." : "Your account is not connected."}</span>
      {connected
        ? <button type="button" onClick={() => revoke.mutate()} disabled={revoke.isPending}>Disconnect</button>
        : <button type="button" onClick={() => connect.mutate()} disabled={connect.isPending}>Connect my account (OAuth)</button>}
      {(connect.error ?? revoke.error) !== null && <ErrorState error={connect.error ?? revoke.error} />}
    </div>
  )
}

const Installed = ({ install, entry }: { readonly install: TenantIntegration; readonly entry: CatalogEntry | undefined }) => {
  const queryClient = useQueryClient()
  const toggle = useMutation({
    mutationFn: (f: { readonly name: string; readonly on: boolean }) =>
      f.on
        ? api((c) => c.integrations.enableFunction({ path: { id: install.id, name: f.name } }))
        : api((c) => c.integrations.disableFunction({ path: { id: install.id, name: f.name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "integrations"] })
  })
  const uninstall = useMutation({
    mutationFn: () => api((c) => c.integrations.uninstall({ path: { id: install.id } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "integrations"] })
  })
  return (
    <li className="card" aria-label={install.display_name}>
      <header>
        <strong>{install.display_name}</strong> <StatusBadge status={install.status} />
        <span className="muted small">
          {install.category}
          {install.has_agent_tool_credentials ? " · tool credentials set" : ""}
          {install.has_data_source_credentials ? " · data source credentials set" : ""}
        </span>
        <button type="button" className="danger" onClick={() => window.confirm(`Uninstall ${install.display_name}?`) && uninstall.mutate()}>Uninstall</button>
      </header>
      <fieldset>
        <legend>Functions AI Employees may call</legend>
        {(entry?.functions ?? []).map((f) => (
          <label key={f.name} className="check">
            <input
              type="checkbox"
              checked={toggle.isPending && toggle.variables.name === f.name ? toggle.variables.on : install.enabled_functions.includes(f.name)}
              disabled={toggle.isPending}
              onChange={(e) => toggle.mutate({ name: f.name, on: e.target.checked })}
            />{" "}
            <span className="mono">{f.name}</span> {f.description}
            {f.side_effects && " (changes things)"}
          </label>
        ))}
      </fieldset>
      <Credentials install={install} />
      {entry?.auth.type === "oauth2" && <Connection install={install} />}
      {(toggle.error ?? uninstall.error) !== null && <ErrorState error={toggle.error ?? uninstall.error} />}
    </li>
  )
}

/** The integrations catalog, the workspace's installs with their credentials and enabled functions, and the person's OAuth connections. */
export const IntegrationsTab = () => {
  const queryClient = useQueryClient()
  const catalog = useQuery({ queryKey: ["admin", "integrations", "catalog"], queryFn: () => api((c) => c.integrations.catalog()) })
  const installed = useQuery({ queryKey: ["admin", "integrations", "installed"], queryFn: () => api((c) => c.integrations.installed()) })
  const install = useMutation({
    mutationFn: (catalogId: string) => api((c) => c.integrations.install({ payload: { catalog_id: catalogId } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "integrations"] })
  })
  const entries = catalog.data?.items ?? []
  const installedIds = new Set((installed.data?.items ?? []).map((i) => i.catalog_id))
  return (
    <div>
      <h3>Installed</h3>
      <Query query={installed} empty={(l) => (l.items.length === 0 ? <Empty>Nothing installed yet.</Empty> : undefined)}>
        {(l) => <ul className="cards">{l.items.map((i) => <Installed key={i.id} install={i} entry={entries.find((e) => e.id === i.catalog_id)} />)}</ul>}
      </Query>
      <h3>Catalog</h3>
      {install.error !== null && <ErrorState error={install.error} />}
      <Query query={catalog} empty={(l) => (l.items.length === 0 ? <Empty>The catalog is empty.</Empty> : undefined)}>
        {(l) => (
          <table className="grid" aria-label="Catalog">
            <thead>
              <tr>
                <th>integration</th>
                <th>category</th>
                <th>functions</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {l.items.map((e) => (
                <tr key={e.id}>
                  <td>{e.display_name}</td>
                  <td>{e.category}</td>
                  <td>{e.functions.length}</td>
                  <td>
                    {installedIds.has(e.id)
                      ? "installed"
                      : <button type="button" onClick={() => install.mutate(e.id)} disabled={install.isPending}>Install {e.display_name}</button>}
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
