import { useQuery } from "@tanstack/react-query"
import type { PublicRun } from "../../../../schemas/PublicApp"
import { api } from "../../api/client"
import { StatusBadge } from "../../ui/Bits"
import { ErrorState, Loading } from "../../ui/States"

const ENDED = new Set(["completed", "failed", "cancelled", "skipped"])

/** A result as a visitor reads it: text as text, fields as a list, anything else as JSON. */
const Output = ({ value }: { readonly value: unknown }) => {
  if (typeof value === "string") return <div className="output-text">{value}</div>
  // An agent step's output: its text is the answer.
  if (typeof value === "object" && value !== null && "text" in value && typeof value.text === "string" && Object.keys(value).length === 1) {
    return <div className="output-text">{value.text}</div>
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return (
      <dl className="output-fields">
        {Object.entries(value).map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{typeof v === "string" ? v : JSON.stringify(v, null, 2)}</dd>
          </div>
        ))}
      </dl>
    )
  }
  return <pre>{JSON.stringify(value, null, 2)}</pre>
}

const result = (run: PublicRun) => (Object.keys(run.named_outputs).length > 0 ? run.named_outputs : run.output)

/** The visitor's run: its steps as they go (read every second until it ends), then its result. */
export const PublicRunView = ({ workflowId, runId, again }: { readonly workflowId: string; readonly runId: string; readonly again: () => void }) => {
  const run = useQuery({
    queryKey: ["public-run", runId],
    queryFn: () => api((c) => c.publicApp.runStatus({ path: { id: workflowId as never, run_id: runId } })),
    refetchInterval: (q) => (q.state.data !== undefined && ENDED.has(q.state.data.status) ? false : 1000)
  })
  if (run.isPending) return <Loading label="Starting" />
  if (run.error !== null) return <ErrorState error={run.error} retry={() => void run.refetch()} />
  const r = run.data
  const ended = ENDED.has(r.status)
  return (
    <section aria-label="Your run" className="public-run">
      <p role="status">
        <StatusBadge status={r.status} />{" "}
        {ended ? (r.status === "completed" ? "Done." : "This run could not finish.") : r.status === "paused" ? "Waiting for a person…" : "Working on it…"}
      </p>
      {r.steps.length > 0 && (
        <ol className="steps" aria-label="Progress">
          {r.steps.map((s) => (
            <li key={s.node_id}>
              <StatusBadge status={s.status} /> {s.node_name ?? s.node_id}
            </li>
          ))}
        </ol>
      )}
      {r.status === "completed" && (
        <div className="result" aria-label="Result">
          <h2>Result</h2>
          <Output value={result(r)} />
        </div>
      )}
      {r.status === "failed" && <p className="notice">Something went wrong on our side. Please try again in a moment.</p>}
      {ended && <button type="button" className="primary" onClick={again}>Run again</button>}
    </section>
  )
}
