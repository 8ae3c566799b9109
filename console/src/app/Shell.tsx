import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Link, Navigate, Outlet, useNavigate } from "@tanstack/react-router"
import { isAtLeast } from "../../../schemas/Roles"
import { api } from "../api/client"
import { useSession, useTenants } from "../api/session"
import { Empty, ErrorState, Loading } from "../ui/States"

/** How many HITL requests wait for the caller: the inbox badge, kept current every few seconds. */
export const useInboxCount = (enabled: boolean) =>
  useQuery({
    queryKey: ["hitl", "count"],
    enabled,
    queryFn: () => api((c) => c.hitl.pending({ urlParams: { page: 1, page_size: 1 } })).then((p) => p.total),
    refetchInterval: 5_000
  })

const TenantSwitcher = ({ current }: { readonly current: string }) => {
  const tenants = useTenants()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const switchTo = useMutation({
    mutationFn: (target: string) => api((c) => c.authMe.switchTenant({ payload: { target_tenant_id: target as never } })),
    onSuccess: async () => {
      await queryClient.resetQueries()
      await navigate({ to: "/runs" })
    }
  })
  const items = tenants.data?.items ?? []
  if (items.length < 2) return null
  return (
    <label className="tenant">
      <span className="visually-hidden">Workspace</span>
      <select value={current} disabled={switchTo.isPending} onChange={(e) => switchTo.mutate(e.target.value)}>
        {items.map((t) => <option key={t.tenant_id} value={t.tenant_id}>{t.name}</option>)}
      </select>
      {switchTo.error !== null && <span role="alert" className="error-text">{switchTo.error.message}</span>}
    </label>
  )
}

/** The signed-in frame: navigation, the workspace, the person. */
export const Shell = () => {
  const session = useSession()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const inbox = useInboxCount(session.data?.user.role !== undefined && session.data.user.role !== "no_access")
  const signOut = useMutation({
    mutationFn: () => api((c) => c.authPublic.logout()),
    onSettled: async () => {
      queryClient.clear()
      await navigate({ to: "/sign-in" })
    }
  })
  if (session.isPending) return <Loading label="Signing in" />
  if (session.error !== null) return <ErrorState error={session.error} retry={() => void session.refetch()} />
  // The session ended (signed out elsewhere, expired past refreshing): sign in again, then come back.
  if (session.data === null) return <Navigate to="/sign-in" search={{ next: location.href.slice(location.origin.length) }} replace />
  const user = session.data.user
  const waiting = inbox.data ?? 0
  return (
    <div className="shell">
      <a className="skip" href="#main">Skip to content</a>
      <header>
        <Link to="/runs" className="brand">Builder Platform</Link>
        <nav aria-label="Main">
          <Link to="/runs" activeProps={{ "aria-current": "page" }}>Runs</Link>
          <Link to="/inbox" activeProps={{ "aria-current": "page" }}>
            Inbox {waiting > 0 && <span className="count" aria-label={`${waiting} waiting`}>{waiting}</span>}
          </Link>
          <Link to="/chat" activeProps={{ "aria-current": "page" }}>Chat</Link>
          <Link to="/ai-employees" activeProps={{ "aria-current": "page" }}>AI Employees</Link>
          <Link to="/knowledge" activeProps={{ "aria-current": "page" }}>Knowledge</Link>
          <Link to="/agents" activeProps={{ "aria-current": "page" }}>Agents</Link>
          <Link to="/eval" activeProps={{ "aria-current": "page" }}>Evaluation</Link>
          <Link to="/documents" activeProps={{ "aria-current": "page" }}>Documents</Link>
          <Link to="/tickets" activeProps={{ "aria-current": "page" }}>Tickets</Link>
          {isAtLeast(user.role, "user_admin") && <Link to="/admin" activeProps={{ "aria-current": "page" }}>Admin</Link>}
        </nav>
        <div className="who">
          <TenantSwitcher current={user.tenant_id} />
          <span className="who-id" title={`${user.name} · ${user.role} · ${user.email}`}>
            <span className="who-name">{user.name}</span>
            <span className="who-role">&nbsp;· {user.role}</span>
          </span>
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {user.role === "no_access"
          ? <Empty>Your account has no access to this workspace. Ask one of its admins for a role, or switch to another workspace.</Empty>
          : <Outlet />}
      </main>
    </div>
  )
}
