import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router"
import { lazy, Suspense } from "react"
import { api } from "../../api/client"
import { allows, useSession } from "../../api/session"
import { StatusBadge, When } from "../../ui/Bits"
import { SchemaForm } from "../../ui/SchemaForm"
import { ErrorState, Loading } from "../../ui/States"
import { TabPanel, Tabs } from "../../ui/Tabs"
import { retryAfterOf, TryLater, useCountdown } from "../../ui/TryLater"
import { TriggersPanel } from "../triggers/TriggersPanel"
import { VersionsPanel } from "../versions/VersionsPanel"
import { ConfigPanel } from "./ConfigPanel"
import { dagShape } from "./dagShape"
import { SettingsPanel } from "./SettingsPanel"

// React Flow and dagre load only where a DAG is drawn.
const DagView = lazy(() => import("./DagView"))

const TABS = ["overview", "versions", "run", "triggers", "settings", "configuration"] as const
type Tab = (typeof TABS)[number]

/** An AI Employee: its status, versions, its DAG drawn, and a run started from its input form. */
export const EmployeePage = () => {
  const { employeeId } = useParams({ from: "/app/ai-employees/$employeeId" })
  const search = useSearch({ from: "/app/ai-employees/$employeeId" })
  const navigate = useNavigate()
  const session = useSession()
  const tab: Tab = TABS.includes(search.tab as Tab) ? search.tab as Tab : "overview"
  const employee = useQuery({ queryKey: ["ai-employee", employeeId], queryFn: () => api((c) => c.workflows.get({ path: { id: employeeId as never } })) })
  const start = useMutation({
    mutationFn: (input: Record<string, unknown>) =>
      api((c) => c.runs.run({ path: { id: employeeId as never }, payload: { input_params: input }, headers: {} })),
    onSuccess: (run) => navigate({ to: "/runs/$runId", params: { runId: run.id }, search: { tab: "steps" } })
  })
  // A start refused for now (the workspace's start rate, or its share of a busy platform) waits out its Retry-After.
  const wait = useCountdown(retryAfterOf(start.error))
  if (employee.isPending) return <Loading label="Loading the AI Employee" />
  if (employee.error !== null) return <ErrorState error={employee.error} retry={() => void employee.refetch()} />
  const w = employee.data
  const dag = dagShape(w.dag_definition)
  const canWrite = allows(session.data?.user.role, "build") && w.adopted_at === undefined
  return (
    <article aria-labelledby="aie-name">
      <div className="page-head">
        <h1 id="aie-name">
          {w.icon !== undefined && <span aria-hidden="true">{w.icon}</span>}
          {w.name} <StatusBadge status={w.status} />
        </h1>
        <span className="head-links">
          <Link to="/runs" search={{ workflow_id: w.id }}>Its runs</Link>
          <Link to="/ai-employees/$employeeId/build" params={{ employeeId: w.id }} className="button primary">Open the canvas</Link>
        </span>
      </div>
      {w.description !== undefined && <p>{w.description}</p>}
      <p className="muted">
        {w.interaction_type} · {w.active_version !== undefined ? `version ${w.active_version} live` : "not published"} · {w.latest_version} saved · updated{" "}
        <When at={w.updated_at} />
        {w.archived && " · archived"}
      </p>
      <Tabs
        tabs={TABS}
        selected={tab}
        label="AI Employee views"
        idPrefix="aie"
        name={(t) => t === "run" ? "Start a run" : t === "configuration" ? "Models and chat" : t[0].toUpperCase() + t.slice(1)}
        onSelect={(t) =>
          void navigate({ to: "/ai-employees/$employeeId", params: { employeeId }, search: { tab: t === "overview" ? undefined : t }, replace: true })}
      />
      <TabPanel idPrefix="aie" tab={tab}>
        {tab === "overview" && (dag.nodes.length === 0
          ? <p className="muted">The DAG has no nodes yet.</p>
          : (
            <Suspense fallback={<Loading label="Drawing the DAG" />}>
              <DagView nodes={dag.nodes} edges={dag.edges} />
            </Suspense>
          ))}
        {tab === "versions" && <VersionsPanel workflow={w} />}
        {tab === "triggers" && <TriggersPanel workflow={w} canWrite={canWrite && !w.archived} />}
        {tab === "settings" && <SettingsPanel workflow={w} canWrite={canWrite} />}
        {tab === "configuration" && <ConfigPanel id={w.id} name={w.name} chat={w.interaction_type === "chat"} canWrite={canWrite && !w.archived} />}
        {tab === "run" && (w.active_version === undefined
          ? <p className="muted">Publish a version to start runs.</p>
          : (
            <>
              <SchemaForm schema={dag.inputSchema} submitLabel="Start run" busy={start.isPending || wait > 0} onSubmit={(values) => start.mutate(values)} />
              {start.error !== null && <TryLater error={start.error} left={wait} />}
            </>
          ))}
      </TabPanel>
    </article>
  )
}
