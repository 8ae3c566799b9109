import { useMutation, useQuery } from "@tanstack/react-query"
import { useParams } from "@tanstack/react-router"
import { useEffect, useState } from "react"
import { api, ApiError } from "../../api/client"
import { SchemaForm } from "../../ui/SchemaForm"
import { ErrorState, Loading } from "../../ui/States"
import { retryAfterOf, useCountdown } from "../../ui/TryLater"
import { PublicRunView } from "./PublicRunView"
import "./publicApp.css"

const StartError = ({ error }: { readonly error: Error }) => {
  const wait = retryAfterOf(error)
  const left = useCountdown(wait)
  if (wait === undefined) return <ErrorState error={error} />
  return (
    <p className="notice" role="status">
      {left > 0
        ? `You have started a lot of runs in a short time. You can start another in ${left} second${left === 1 ? "" : "s"}.`
        : "You can start another run now."}
    </p>
  )
}

/**
 * The page a published app's public URL opens (`/apps/{id}`), for visitors without an account: the
 * form of the start node's input schema, then the run's progress and its result.
 */
export const PublicAppPage = () => {
  const { workflowId } = useParams({ from: "/apps/$workflowId" })
  const info = useQuery({ queryKey: ["public-app", workflowId], queryFn: () => api((c) => c.publicApp.info({ path: { id: workflowId as never } })) })
  const [runId, setRunId] = useState<string | undefined>(undefined)
  const start = useMutation({
    mutationFn: (input_params: Record<string, unknown>) => api((c) => c.publicApp.run({ path: { id: workflowId as never }, payload: { input_params } })),
    onSuccess: (run) => setRunId(run.id)
  })
  useEffect(() => {
    if (info.data !== undefined) document.title = info.data.name
  }, [info.data])
  if (info.isPending) {
    return (
      <main className="public-app">
        <Loading />
      </main>
    )
  }
  if (info.error !== null) {
    return (
      <main className="public-app">
        {info.error instanceof ApiError && info.error.status === 404
          ? <p className="state">This app does not exist or is no longer shared.</p>
          : <ErrorState error={info.error} retry={() => void info.refetch()} />}
      </main>
    )
  }
  const app = info.data
  return (
    <main className="public-app">
      <header>
        {app.icon !== undefined && <span className="icon" aria-hidden="true">{app.icon}</span>}
        <h1>{app.name}</h1>
      </header>
      {app.description !== undefined && <p className="muted">{app.description}</p>}
      {!app.published
        ? <p className="notice">This app is not available yet.</p>
        : runId === undefined
        ? (
          <SchemaForm
            schema={app.input_schema ?? { type: "object", properties: {} }}
            submitLabel="Run"
            busy={start.isPending}
            onSubmit={(values) => start.mutate(values)}
          />
        )
        : (
          <PublicRunView
            workflowId={workflowId}
            runId={runId}
            again={() => {
              start.reset()
              setRunId(undefined)
            }}
          />
        )}
      {start.error !== null && <StartError error={start.error} />}
      <footer className="muted small">Runs are limited to {app.runs_per_minute} a minute from each address.</footer>
    </main>
  )
}
