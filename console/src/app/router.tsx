import type { QueryClient } from "@tanstack/react-query"
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, Link, Outlet, redirect } from "@tanstack/react-router"
import { hasSessionCookie, sessionQuery } from "../api/session"
import { SignIn } from "../features/auth/SignIn"
import { runHistoryQuery } from "../features/runs/runsApi"
import { Shell } from "./Shell"

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined)

/** Search parameters as the pages read them: unknown keys dropped, empty values absent. */
const pick = <K extends string>(keys: ReadonlyArray<K>) => (search: Record<string, unknown>) =>
  Object.fromEntries(keys.flatMap((k) => (text(search[k]) === undefined ? [] : [[k, text(search[k])]]))) as { [P in K]?: string | undefined }

const pickRunSearch = pick(["status", "trigger_type", "workflow_id", "since", "order", "cursor"])

const NotFound = () => (
  <main className="not-found">
    <h1>This page does not exist</h1>
    <p>
      <Link to="/runs">Go to the runs</Link>
    </p>
  </main>
)

const rootRoute = createRootRouteWithContext<{ readonly queryClient: QueryClient }>()({ component: Outlet, notFoundComponent: NotFound })

const signIn = createRoute({ getParentRoute: () => rootRoute, path: "/sign-in", component: SignIn, validateSearch: pick(["next", "sso_error"]) })

/**
 * The signed-in pages: a visitor without a session is sent to sign in first, and back here after.
 * The session is asked for while the page's own data loads (one round trip, not two); the shell
 * sends to sign in a session the platform no longer knows.
 */
const app = createRoute({
  getParentRoute: () => rootRoute,
  id: "app",
  component: Shell,
  beforeLoad: ({ context, location }) => {
    if (!hasSessionCookie()) throw redirect({ to: "/sign-in", search: { next: location.href } })
    void context.queryClient.prefetchQuery(sessionQuery)
  }
})

const home = createRoute({
  getParentRoute: () => app,
  path: "/",
  beforeLoad: () => {
    throw redirect({ to: "/runs" })
  }
})

// The first page most people see: its first page is asked for as the route matches, beside its code.
const runs = createRoute({
  getParentRoute: () => app,
  path: "/runs",
  validateSearch: pickRunSearch,
  loader: ({ context, location }) => void context.queryClient.prefetchQuery(runHistoryQuery(pickRunSearch(location.search as Record<string, unknown>))),
  component: lazyRouteComponent(() => import("../features/runs/RunsPage"), "RunsPage")
})

const run = createRoute({
  getParentRoute: () => app,
  path: "/runs/$runId",
  validateSearch: pick(["tab"]),
  component: lazyRouteComponent(() => import("../features/runs/RunPage"), "RunPage")
})

const inbox = createRoute({
  getParentRoute: () => app,
  path: "/inbox",
  component: lazyRouteComponent(() => import("../features/inbox/InboxPage"), "InboxPage")
})

const employees = createRoute({
  getParentRoute: () => app,
  path: "/ai-employees",
  validateSearch: pick(["q", "interaction_type", "archived"]),
  component: lazyRouteComponent(() => import("../features/employees/EmployeesPage"), "EmployeesPage")
})

const employee = createRoute({
  getParentRoute: () => app,
  path: "/ai-employees/$employeeId",
  validateSearch: pick(["tab"]),
  component: lazyRouteComponent(() => import("../features/employees/EmployeePage"), "EmployeePage")
})

const builder = createRoute({
  getParentRoute: () => app,
  path: "/ai-employees/$employeeId/build",
  validateSearch: pick(["run"]),
  component: lazyRouteComponent(() => import("../features/builder/BuilderPage"), "BuilderPage")
})

const compare = createRoute({
  getParentRoute: () => app,
  path: "/ai-employees/$employeeId/compare",
  validateSearch: pick(["from", "to"]),
  component: lazyRouteComponent(() => import("../features/versions/ComparePage"), "ComparePage")
})

const knowledge = createRoute({
  getParentRoute: () => app,
  path: "/knowledge",
  component: lazyRouteComponent(() => import("../features/knowledge/KnowledgePage"), "KnowledgePage")
})

const knowledgeBase = createRoute({
  getParentRoute: () => app,
  path: "/knowledge/$kbId",
  component: lazyRouteComponent(() => import("../features/knowledge/KnowledgeBasePage"), "KnowledgeBasePage")
})

const agents = createRoute({
  getParentRoute: () => app,
  path: "/agents",
  component: lazyRouteComponent(() => import("../features/agents/AgentsPage"), "AgentsPage")
})

const chat = createRoute({
  getParentRoute: () => app,
  path: "/chat",
  validateSearch: pick(["employee", "session"]),
  component: lazyRouteComponent(() => import("../features/chat/ChatPage"), "ChatPage")
})

const evaluation = createRoute({
  getParentRoute: () => app,
  path: "/eval",
  validateSearch: pick(["employee", "tab"]),
  component: lazyRouteComponent(() => import("../features/eval/EvalPage"), "EvalPage")
})

const evalRun = createRoute({
  getParentRoute: () => app,
  path: "/eval/runs/$runId",
  component: lazyRouteComponent(() => import("../features/eval/EvalRunPage"), "EvalRunPage")
})

const evalCompare = createRoute({
  getParentRoute: () => app,
  path: "/eval/compare",
  validateSearch: pick(["run_1", "run_2"]),
  component: lazyRouteComponent(() => import("../features/eval/ComparePage"), "EvalComparePage")
})

const tickets = createRoute({
  getParentRoute: () => app,
  path: "/tickets",
  validateSearch: pick(["group", "scope", "status", "priority", "q", "sort", "order"]),
  component: lazyRouteComponent(() => import("../features/tickets/TicketsPage"), "TicketsPage")
})

const ticket = createRoute({
  getParentRoute: () => app,
  path: "/tickets/$groupId/$ticketId",
  component: lazyRouteComponent(() => import("../features/tickets/TicketPage"), "TicketPage")
})

const admin = createRoute({
  getParentRoute: () => app,
  path: "/admin",
  validateSearch: pick(["tab"]),
  component: lazyRouteComponent(() => import("../features/admin/AdminPage"), "AdminPage")
})

const documentList = createRoute({
  getParentRoute: () => app,
  path: "/documents",
  component: lazyRouteComponent(() => import("../features/documents/DocumentsPage"), "DocumentsPage")
})

const documentPage = createRoute({
  getParentRoute: () => app,
  path: "/documents/$docId",
  component: lazyRouteComponent(() => import("../features/documents/DocumentPage"), "DocumentPage")
})

const oauthCallback = createRoute({
  getParentRoute: () => app,
  path: "/integrations/oauth2/callback",
  validateSearch: pick(["code", "state"]),
  component: lazyRouteComponent(() => import("../features/admin/OAuthCallbackPage"), "OAuthCallbackPage")
})

// A published app's public page: no account, no session asked for.
const publicApp = createRoute({
  getParentRoute: () => rootRoute,
  path: "/apps/$workflowId",
  component: lazyRouteComponent(() => import("../features/publicApp/PublicAppPage"), "PublicAppPage")
})

const routeTree = rootRoute.addChildren([
  signIn,
  publicApp,
  app.addChildren([
    home,
    runs,
    run,
    inbox,
    employees,
    employee,
    builder,
    compare,
    knowledge,
    knowledgeBase,
    agents,
    chat,
    evaluation,
    evalRun,
    evalCompare,
    tickets,
    ticket,
    admin,
    documentList,
    documentPage,
    oauthCallback
  ])
])

export const makeRouter = (queryClient: QueryClient) => createRouter({ routeTree, context: { queryClient }, defaultPreload: "intent", scrollRestoration: true })

declare module "@tanstack/react-router" {
  interface Register {
    router: ReturnType<typeof makeRouter>
  }
}
