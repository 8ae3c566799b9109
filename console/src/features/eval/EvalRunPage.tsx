import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Link, useParams } from "@tanstack/react-router"
import { api } from "../../api/client"
import { StatusBadge, When } from "../../ui/Bits"
import { ErrorState, Query } from "../../ui/States"
import { ENDED, evalRunQuery } from "./evalApi"
import { ResultsTable } from "./ResultsTable"
import { Progress } from "./RunsTab"
import { ScoreChart } from "./ScoreChart"
import "./eval.css"

/** One evaluation: its progress live (cancel while it goes), its scores drawn, its results. */
export const EvalRunPage = () => {
  const { runId } = useParams({ from: "/app/eval/runs/$runId" })
  const queryClient = useQueryClient()
  const run = useQuery(evalRunQuery(runId))
  const cancel = useMutation({
    mutationFn: () => api((c) => c.eval.cancelRun({ path: { id: runId } })),
    onSuccess: (r) => queryClient.setQueryData(["eval", "run", runId], r)
  })
  return (
    <Query query={run}>
      {(r) => (
        <section aria-labelledby="eval-run-title" className="eval-run">
          <div className="page-head">
            <h1 id="eval-run-title">
              Evaluation <span className="mono">{r.id.slice(-8)}</span>
              {r.is_preview && " (preview)"}
            </h1>
            <StatusBadge status={r.status} />
            {!ENDED.has(r.status) && <button type="button" className="danger" onClick={() => cancel.mutate()} disabled={cancel.isPending}>Cancel</button>}
          </div>
          <p className="muted">
            <Link to="/eval" search={{ employee: r.workflow_id }}>Back to the evaluations</Link> · version {r.version} · started <When at={r.created_at} />
            {r.finished_at !== null && (
              <>
                · ended <When at={r.finished_at} />
              </>
            )}
          </p>
          <Progress run={r} />
          {r.error !== null && <p className="error-text">{r.error}</p>}
          {cancel.error !== null && <ErrorState error={cancel.error} />}
          <h2>Scores</h2>
          <ScoreChart run={r} />
          <h2>Results</h2>
          <ResultsTable runId={r.id} live={!ENDED.has(r.status)} />
        </section>
      )}
    </Query>
  )
}
