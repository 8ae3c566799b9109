import { useQuery } from "@tanstack/react-query"
import { Link } from "@tanstack/react-router"
import { useState } from "react"
import { ResultStatus } from "../../../../schemas/Eval"
import { api } from "../../api/client"
import { Json, StatusBadge } from "../../ui/Bits"
import { Empty, Query } from "../../ui/States"

const PAGE = 25

/** One result opened: what went in, what came out, the conversation, the scores, and the workflow run it made. */
const ResultDetail = ({ id }: { readonly id: string }) => {
  const result = useQuery({ queryKey: ["eval", "result", id], queryFn: () => api((c) => c.eval.result({ path: { id } })) })
  return (
    <Query query={result}>
      {(r) => (
        <div className="result-detail" aria-label={`Result ${r.position + 1}`}>
          <Json label="Inputs" value={r.inputs} />
          {r.expected_output !== null && <Json label="Expected" value={r.expected_output} />}
          <Json label="Output" value={r.actual_output} />
          {r.simulator_transcript !== null && (
            <ol className="transcript" aria-label="Transcript">
              {r.simulator_transcript.map((t, i) => (
                <li key={i}>
                  <strong>{t.role}:</strong> {t.content}
                </li>
              ))}
            </ol>
          )}
          <Json label="Scores" value={r.rubric_scores} />
          {r.error !== null && <p className="error-text">{r.error}</p>}
          {r.workflow_run_id !== null && (
            <p>
              <Link to="/runs/$runId" params={{ runId: r.workflow_run_id }}>Open the workflow run</Link>
            </p>
          )}
        </div>
      )}
    </Query>
  )
}

const scoreText = (scores: Record<string, unknown> | null) =>
  scores === null ? "—" : Object.entries(scores).map(([k, v]) => `${k}: ${typeof v === "number" ? Number(v.toFixed(2)) : String(v)}`).join(", ")

/** A run's results, filtered by status, 25 a page; a result opens in place. */
export const ResultsTable = ({ runId, live }: { readonly runId: string; readonly live: boolean }) => {
  const [status, setStatus] = useState("")
  const [page, setPage] = useState(1)
  const [open, setOpen] = useState<string | undefined>(undefined)
  const results = useQuery({
    // `live` in the key: the results are read once more when the run ends.
    queryKey: ["eval", "results", runId, status, page, live],
    queryFn: () =>
      api((c) =>
        c.eval.results({ path: { id: runId }, urlParams: { page, page_size: PAGE, ...(status !== "" ? { status: status as typeof ResultStatus.Type } : {}) } })
      ),
    refetchInterval: live ? 2_000 : false,
    placeholderData: (previous) => previous
  })
  return (
    <section aria-label="Results">
      <div className="filters">
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value)
              setPage(1)
            }}
          >
            <option value="">any</option>
            {ResultStatus.literals.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
      </div>
      <Query query={results} empty={(p) => (p.items.length === 0 ? <Empty>No result here.</Empty> : undefined)}>
        {(p) => (
          <>
            <table className="grid">
              <thead>
                <tr>
                  <th>#</th>
                  <th>status</th>
                  <th>scores</th>
                  <th>time</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {p.items.map((r) => [
                  <tr key={r.id}>
                    <td>{r.position + 1}</td>
                    <td>
                      <StatusBadge status={r.status} />
                    </td>
                    <td>{scoreText(r.rubric_scores)}</td>
                    <td>{r.duration_ms === null ? "—" : `${(r.duration_ms / 1000).toFixed(1)} s`}</td>
                    <td>
                      <button type="button" aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? undefined : r.id)}>
                        {open === r.id ? "Close" : `Open result ${r.position + 1}`}
                      </button>
                    </td>
                  </tr>,
                  open === r.id && (
                    <tr key={`${r.id}-open`}>
                      <td colSpan={5}>
                        <ResultDetail id={r.id} />
                      </td>
                    </tr>
                  )
                ])}
              </tbody>
            </table>
            <div className="pager">
              <button type="button" disabled={page === 1} onClick={() => setPage(page - 1)}>Previous</button>
              <span>Page {page} of {Math.max(1, Math.ceil(p.total / PAGE))}</span>
              <button type="button" disabled={!p.has_more} onClick={() => setPage(page + 1)}>Next</button>
            </div>
          </>
        )}
      </Query>
    </section>
  )
}
