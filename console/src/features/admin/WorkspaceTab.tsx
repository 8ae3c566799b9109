import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import type { Tenant } from "../../../../schemas/Tenant"
import { api } from "../../api/client"
import { useSession } from "../../api/session"
import { ErrorState, Query } from "../../ui/States"
import { SsoCard } from "./SsoCard"
import { TenantsCard } from "./TenantsCard"

const FLAGS = [
  ["require_totp", "Require an authenticator code (TOTP) at sign-in"],
  ["user_groups_enabled", "User groups"],
  ["ticketing_enabled", "Ticketing"],
  ["chat_impersonation", "Chat impersonation and per-turn user context"]
] as const

const LIMITS = [
  ["max_runs_in_flight", "Runs in flight (per runner)"],
  ["max_model_calls_in_flight", "Model calls in flight"],
  ["max_run_starts_per_second", "Run starts a second"]
] as const

const numberOrUndefined = (text: string) => (text.trim() === "" ? undefined : Number(text))

/** The workspace's settings that earlier issues added: sign-in, features, retention, and (for env_admins) its share of the platform. */
const Settings = ({ tenant, envAdmin }: { readonly tenant: Tenant; readonly envAdmin: boolean }) => {
  const queryClient = useQueryClient()
  const s = tenant.settings
  const [flags, setFlags] = useState<Record<string, boolean>>(Object.fromEntries(FLAGS.map(([k]) => [k, s[k]])))
  const [retention, setRetention] = useState(s.run_retention_days?.toString() ?? "")
  const [detail, setDetail] = useState(s.run_detail_retention_days?.toString() ?? "")
  const [limits, setLimits] = useState<Record<string, string>>(Object.fromEntries(LIMITS.map(([k]) => [k, s[k]?.toString() ?? ""])))
  const save = useMutation({
    mutationFn: () =>
      api((c) =>
        c.tenants.updateSettings({
          path: { id: tenant.id },
          payload: {
            ...flags,
            ...(numberOrUndefined(retention) !== undefined ? { run_retention_days: numberOrUndefined(retention) } : {}),
            run_detail_retention_days: numberOrUndefined(detail) ?? null,
            ...(envAdmin
              ? Object.fromEntries(LIMITS.flatMap(([k]) => (numberOrUndefined(limits[k] ?? "") === undefined ? [] : [[k, numberOrUndefined(limits[k] ?? "")]])))
              : {})
          }
        })
      ),
    onSuccess: (t) => queryClient.setQueryData(["admin", "tenant", tenant.id], t)
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    save.mutate()
  }
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="Workspace settings">
      <h3>{tenant.name}</h3>
      {FLAGS.map(([k, label]) => (
        <label key={k} className="check">
          <input type="checkbox" checked={flags[k] ?? false} onChange={(e) => setFlags({ ...flags, [k]: e.target.checked })} /> {label}
        </label>
      ))}
      <div className="field-row wide">
        <label>
          Keep finished runs (days){" "}
          <input type="number" min={1} value={retention} onChange={(e) => setRetention(e.target.value)} placeholder="platform default" />
        </label>
        <label>
          Keep their spans and tokens (days){" "}
          <input type="number" min={1} value={detail} onChange={(e) => setDetail(e.target.value)} placeholder="as long as the run" />
        </label>
      </div>
      {envAdmin && (
        <div className="field-row wide">
          {LIMITS.map(([k, label]) => (
            <label key={k}>
              {label}{" "}
              <input
                type="number"
                min={1}
                value={limits[k] ?? ""}
                onChange={(e) => setLimits({ ...limits, [k]: e.target.value })}
                placeholder="platform default"
              />
            </label>
          ))}
        </div>
      )}
      {save.error !== null && <ErrorState error={save.error} />}
      {save.isSuccess && <p className="notice ok" role="status">Settings saved</p>}
      <button type="submit" className="primary" disabled={save.isPending}>Save settings</button>
    </form>
  )
}

export const WorkspaceTab = () => {
  const session = useSession()
  const user = session.data?.user
  const tenant = useQuery({
    queryKey: ["admin", "tenant", user?.tenant_id],
    enabled: user !== undefined,
    queryFn: () => api((c) => c.tenants.getSettings({ path: { id: user!.tenant_id } }))
  })
  return (
    <Query query={tenant}>
      {(t) => (
        <>
          <Settings key={t.id} tenant={t} envAdmin={user?.role === "env_admin"} />
          <SsoCard tenantId={t.id} />
          {user?.role === "env_admin" && <TenantsCard />}
        </>
      )}
    </Query>
  )
}
