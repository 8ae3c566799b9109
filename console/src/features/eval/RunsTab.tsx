import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Link, useNavigate } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import type { EvalRun } from "../../../../schemas/Eval"
import { api } from "../../api/client"
import { StatusBadge, When } from "../../ui/Bits"
import { Empty, ErrorState, Query } from "../../ui/States"
import { configsQuery, datasetsQuery, evalRunsQuery } from "./evalApi"

export const Progress = ({ run }: { readonly run: EvalRun }) => {
  const done = run.completed_rows + run.failed_rows
  return (
    <span className="progress">
      <progress max={Math.max(1, run.total_rows)} value={done} aria-label="Rows scored" /> {done} / {run.total_rows}
      {run.failed_rows > 0 && <span className="error-text">· {run.failed_rows} failed</span>}
    </span>
  )
}

const NewRun = ({ workflowId }: { readonly workflowId: string }) => {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const configs = useQuery(configsQuery(workflowId))
  const datasets = useQuery(datasetsQuery(workflowId))
  const [configId, setConfigId] = useState("")
  const [datasetId, setDatasetId] = useState("")
  const [preview, setPreview] = useState(false)
  const start = useMutation({
    mutationFn: () => api((c) => c.eval.createRun({ payload: { config_id: configId, dataset_id: datasetId, is_preview: preview }, headers: {} })),
    onSuccess: async (run) => {
      await queryClient.invalidateQueries({ queryKey: ["eval", "runs", workflowId] })
      await navigate({ to: "/eval/runs/$runId", params: { runId: run.id } })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    start.mutate()
  }
  return (
    <form className="filters" onSubmit={submit} aria-label="Start an evaluation">
      <label>
        Config
        <select value={configId} onChange={(e) => setConfigId(e.target.value)} required>
          <option value="">Pick a config</option>
          {(configs.data?.items ?? []).map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
        </select>
      </label>
      <label>
        Dataset
        <select value={datasetId} onChange={(e) => setDatasetId(e.target.value)} required>
          <option value="">Pick a dataset</option>
          {(datasets.data?.items ?? []).filter((d) => d.mapped_rows > 0).map((d) => <option key={d.id} value={d.id}>{d.name} ({d.mapped_rows} rows)</option>)}
        </select>
      </label>
      <label className="check">
        <input type="checkbox" checked={preview} onChange={(e) => setPreview(e.target.checked)} /> Preview (a few rows)
      </label>
      <button type="submit" className="primary" disabled={start.isPending || configId === "" || datasetId === ""}>Start evaluation</button>
      {start.error !== null && <ErrorState error={start.error} />}
    </form>
  )
}

/** The AI Employee's evaluations, live while they run; two picked are compared row by row. */
export const RunsTab = ({ workflowId }: { readonly workflowId: string }) => {
  const runs = useQuery(evalRunsQuery(workflowId))
  const [picked, setPicked] = useState<ReadonlyArray<string>>([])
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id].slice(-2)))
  return (
    <div>
      <NewRun workflowId={workflowId} />
      {picked.length === 2 && (
        <p>
          <Link to="/eval/compare" search={{ run_1: picked[0], run_2: picked[1] }} className="button-link">Compare the two picked</Link>
        </p>
      )}
      <Query query={runs} empty={(p) => (p.items.length === 0 ? <Empty>No evaluation yet.</Empty> : undefined)}>
        {(page) => (
          <table className="grid" aria-label="Evaluations">
            <thead>
              <tr>
                <th>compare</th>
                <th>evaluation</th>
                <th>status</th>
                <th>progress</th>
                <th>version</th>
                <th>started</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((r) => (
                <tr key={r.id}>
                  <td>
                    <input type="checkbox" aria-label={`Pick ${r.id.slice(-8)} to compare`} checked={picked.includes(r.id)} onChange={() => toggle(r.id)} />
                  </td>
                  <td>
                    <Link to="/eval/runs/$runId" params={{ runId: r.id }} className="mono">{r.id.slice(-8)}</Link>
                    {r.is_preview && " (preview)"}
                  </td>
                  <td>
                    <StatusBadge status={r.status} />
                  </td>
                  <td>
                    <Progress run={r} />
                  </td>
                  <td>v{r.version}</td>
                  <td>
                    <When at={r.created_at} />
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
