import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import type { SsoConfig } from "../../../../schemas/Auth"
import { Role } from "../../../../schemas/Roles"
import { api, ApiError } from "../../api/client"
import { ErrorState } from "../../ui/States"

const domainsOf = (text: string) => text.split(/[\s,]+/).map((s) => s.trim().toLowerCase()).filter((s) => s !== "")

const SsoForm = ({ tenantId, current }: { readonly tenantId: string; readonly current: SsoConfig | undefined }) => {
  const queryClient = useQueryClient()
  const [issuer, setIssuer] = useState(current?.issuer ?? "")
  const [clientId, setClientId] = useState(current?.client_id ?? "")
  const [secret, setSecret] = useState("")
  const [domains, setDomains] = useState(current?.email_domains.join(", ") ?? "")
  const [provision, setProvision] = useState(current?.auto_provision ?? false)
  const [enabled, setEnabled] = useState(current?.enabled ?? true)
  const [role, setRole] = useState<typeof Role.Type>(current?.default_role ?? "user")
  const [scopes, setScopes] = useState(current?.scopes ?? "openid email profile")
  const put = useMutation({
    mutationFn: () =>
      api((c) =>
        c.tenants.putSso({
          path: { id: tenantId as never },
          payload: {
            issuer,
            client_id: clientId,
            ...(secret !== "" ? { client_secret: secret } : {}),
            email_domains: domainsOf(domains),
            auto_provision: provision,
            enabled,
            scopes,
            default_role: role
          }
        })
      ),
    onSuccess: (c) => {
      setSecret("")
      queryClient.setQueryData(["admin", "sso", tenantId], c)
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    put.mutate()
  }
  // An edit makes the last "saved" stale: it goes until the next save.
  return (
    <form className="card settings-form" onSubmit={submit} onChange={() => put.reset()} aria-label="Single sign-on">
      <h3>Single sign-on (OpenID Connect)</h3>
      <div className="field-row wide">
        <label>
          Issuer <input value={issuer} onChange={(e) => setIssuer(e.target.value)} required placeholder="https://login.example.com" />
        </label>
        <label>
          Client id <input value={clientId} onChange={(e) => setClientId(e.target.value)} required />
        </label>
        <label>
          Client secret{" "}
          <input
            type="password"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            placeholder={current?.has_client_secret === true ? "kept (type to replace)" : ""}
          />
        </label>
      </div>
      <label>
        Email domains <input value={domains} onChange={(e) => setDomains(e.target.value)} placeholder="example.com" />
      </label>
      {current !== undefined && current.email_domain_claims.length > 0 && (
        <p className="muted small">{current.email_domain_claims.map((c) => `${c.domain}: ${c.status}`).join(" · ")} (an env_admin approves a domain)</p>
      )}
      <div className="field-row wide">
        <label>
          Scopes <input value={scopes} onChange={(e) => setScopes(e.target.value)} required />
        </label>
        <label>
          Role of people added{" "}
          <select value={role} onChange={(e) => setRole(e.target.value as typeof Role.Type)}>
            {Role.literals.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        </label>
      </div>
      <label className="check">
        <input type="checkbox" checked={provision} onChange={(e) => setProvision(e.target.checked)} /> Add people who sign in for the first time
      </label>
      <label className="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> On
      </label>
      {current !== undefined && (
        <p className="muted small">
          Redirect URI for the provider: <span className="mono">{current.redirect_uri}</span>
        </p>
      )}
      {put.error !== null && <ErrorState error={put.error} />}
      {put.isSuccess && <p className="notice ok" role="status">Single sign-on saved</p>}
      <button type="submit" className="primary" disabled={put.isPending}>Save single sign-on</button>
    </form>
  )
}

/** The workspace's identity provider: none yet (404) is a blank form. */
export const SsoCard = ({ tenantId }: { readonly tenantId: string }) => {
  const sso = useQuery({
    queryKey: ["admin", "sso", tenantId],
    queryFn: () =>
      api((c) => c.tenants.getSso({ path: { id: tenantId as never } })).catch((
        e: unknown
      ) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e))),
    retry: false
  })
  if (sso.isPending) return null
  if (sso.error !== null) return <ErrorState error={sso.error} />
  return <SsoForm key={tenantId} tenantId={tenantId} current={sso.data ?? undefined} />
}
