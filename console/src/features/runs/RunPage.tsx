import { useMutation, useQueryClient } from "@tanstack/react-query"
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router"
import type { ReactNode } from "react"
import { api } from "../../api/client"
import { useRunEvents } from "../../api/runEvents"
import { allows, useSession } from "../../api/session"
import { duration, formatDate, Json, shortId, StatusBadge } from "../../ui/Bits"
import { ErrorState, Loading, Query } from "../../ui/States"
import { TabPanel, Tabs } from "../../ui/Tabs"
import { stepInputs } from "../traces/spans"
import { Waterfall } from "../traces/Waterfall"
import { isTerminal, useChildRuns, useRun, useSteps, useTrace } from "./runApi"
import { RunEvents } from "./RunEvents"
import { RunSteps } from "./RunSteps"

const TABS = ["overview", "steps", "events", "trace"] as const
type Tab = (typeof TABS)[number]

const Field = ({ name, children }: { readonly name: string; readonly children: ReactNode }) => (
  <div>
    <dt>{name}</dt>
    <dd>{children}</dd>
  </div>
)

/** One run: its record, steps, live events and trace; cancel for admins; links to its parent and children. */
export const RunPage = () => {
  const { runId } = useParams({ from: "/app/runs/$runId" })
  const search = useSearch({ from: "/app/runs/$runId" })
  const navigate = useNavigate()
  const tab: Tab = TABS.includes(search.tab as Tab) ? search.tab as Tab : "overview"
  const session = useSession()
  const run = useRun(runId)
  const live = run.data !== undefined && !isTerminal(run.data.status)
  const found = run.data !== undefined
  const steps = useSteps(runId, { enabled: found, live })
  const children = useChildRuns(runId, found)
  const trace = useTrace(runId, { enabled: found && (tab === "trace" || tab === "steps"), live })
  const { events, state } = useRunEvents(runId, found)
  const queryClient = useQueryClient()
  const cancel = useMutation({
    mutationFn: () => api((c) => c.runs.cancel({ path: { id: runId } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["run", runId] })
  })
  if (run.isPending) return <Loading label="Loading the run" />
  if (run.error !== null) return <ErrorState error={run.error} retry={() => void run.refetch()} />
  const r = run.data
  const usage = Object.entries(r.token_usage)
  return (
    <article aria-labelledby="run-title">
      <div className="page-head">
        <h1 id="run-title">
          Run <span className="mono">{shortId(r.id)}</span> <StatusBadge status={r.status} />
        </h1>
        {allows(session.data?.user.role, "administerRuns") && !isTerminal(r.status) && (
          <button
            type="button"
            className="danger"
            onClick={() => cancel.mutate()}
            disabled={cancel.isPending}
          >
            Cancel run
          </button>
        )}
      </div>
      {cancel.error !== null && <ErrorState error={cancel.error} />}
      <p className="muted">
        <Link to="/ai-employees/$employeeId" params={{ employeeId: r.workflow_id }}>{r.workflow_name}</Link> · version {r.version} · {r.trigger_type}
        {" · "}
        <Link to="/ai-employees/$employeeId/build" params={{ employeeId: r.workflow_id }} search={{ run: r.id }}>Open in the editor</Link>
        {r.parent_run_id !== undefined && (
          <>
            · started by <Link to="/runs/$runId" params={{ runId: r.parent_run_id }} className="mono">{shortId(r.parent_run_id)}</Link>
          </>
        )}
      </p>
      <Tabs
        tabs={TABS}
        selected={tab}
        label="Run views"
        idPrefix="run"
        name={(t) => t[0].toUpperCase() + t.slice(1)}
        onSelect={(t) => void navigate({ to: "/runs/$runId", params: { runId }, search: { tab: t === "overview" ? undefined : t }, replace: true })}
      />
      <TabPanel idPrefix="run" tab={tab}>
        {tab === "overview" && (
          <>
            <dl className="facts">
              <Field name="Status">
                <StatusBadge status={r.status} />
              </Field>
              <Field name="Created">{formatDate(r.created_at)}</Field>
              <Field name="Queued">{duration(r.created_at, r.started_at)}</Field>
              <Field name="Ran">
                {duration(r.started_at, r.finished_at ?? (r.started_at !== undefined ? new Date() : undefined))}
                {r.finished_at === undefined && r.started_at !== undefined ? " so far" : ""}
              </Field>
              <Field name="Version">v{r.version}</Field>
              <Field name="Trigger">{r.trigger_type}</Field>
              {r.error !== undefined && (
                <Field name="Error">
                  <span className="error-text">{r.error}</span>
                </Field>
              )}
            </dl>
            <Json label="Input" value={r.input_params} />
            <Json label="Output" value={r.output} />
            {Object.keys(r.named_outputs).length > 0 && <Json label="Named outputs" value={r.named_outputs} />}
            <h2>Tokens by model</h2>
            {usage.length === 0 ? <p className="muted">No model was called.</p> : (
              <table className="grid compact">
                <thead>
                  <tr>
                    <th scope="col">Model</th>
                    <th scope="col">Prompt</th>
                    <th scope="col">Completion</th>
                    <th scope="col">Total</th>
                  </tr>
                </thead>
                <tbody>
                  {usage.map(([model, u]) => (
                    <tr key={model}>
                      <td>{model}</td>
                      <td>{u.prompt_tokens}</td>
                      <td>{u.completion_tokens}</td>
                      <td>{u.total_tokens}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <h2>Child runs</h2>
            <Query query={children}>
              {(page) =>
                page.items.length === 0 ? <p className="muted">This run started no other run.</p> : (
                  <ul>
                    {page.items.map((c) => (
                      <li key={c.id}>
                        <Link to="/runs/$runId" params={{ runId: c.id }} className="mono">{shortId(c.id)}</Link> {c.workflow_name}{" "}
                        <StatusBadge status={c.status} />
                      </li>
                    ))}
                  </ul>
                )}
            </Query>
          </>
        )}
        {tab === "steps" && (
          <Query query={steps}>
            {(s) => <RunSteps steps={s.items} events={events} inputs={trace.data !== undefined ? stepInputs(trace.data.traces.resourceSpans) : new Map()} />}
          </Query>
        )}
        {tab === "events" && <RunEvents events={events} state={state} />}
        {tab === "trace" && <Query query={trace}>{(t) => <Waterfall resourceSpans={t.traces.resourceSpans} truncated={t.truncated} />}</Query>}
      </TabPanel>
    </article>
  )
}
