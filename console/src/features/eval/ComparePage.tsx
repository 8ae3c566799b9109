import { useQuery } from "@tanstack/react-query"
import { Link, useSearch } from "@tanstack/react-router"
import { Bar, BarChart, CartesianGrid, Legend, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts"
import type { Comparison } from "../../../../schemas/Eval"
import { api } from "../../api/client"
import { Empty, Query } from "../../ui/States"
import "./eval.css"

const COLORS = ["#2f4fdb", "#17804a", "#a15c00", "#c0362c", "#6b3fb0"]

const fieldsOf = (c: Comparison) => [...new Set(c.pairs.flatMap((p) => Object.keys(p.score_deltas)))]

/** The score differences row by row (the second run's score minus the first's), drawn per rubric field. */
const DeltaChart = ({ comparison }: { readonly comparison: Comparison }) => {
  const fields = fieldsOf(comparison)
  if (fields.length === 0) return <Empty>No row has a score in both runs.</Empty>
  const data = comparison.pairs.map((p) => ({ row: `#${p.position + 1}`, ...p.score_deltas }))
  return (
    <figure className="chart" aria-label="Score differences by row">
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={data} margin={{ top: 10, right: 20, bottom: 10, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="row" />
          <YAxis />
          <Tooltip />
          <Legend />
          <ReferenceLine y={0} stroke="#1c2430" />
          {fields.map((f, i) => <Bar key={f} dataKey={f} name={`${f} (second - first)`} fill={COLORS[i % COLORS.length]} isAnimationActive={false} />)}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  )
}

const score = (r: Comparison["pairs"][number]["result_1"], f: string) => {
  const v = r?.rubric_scores?.[f]
  return typeof v === "number" ? Number(v.toFixed(2)) : v === undefined ? "—" : String(v)
}

/** Two evaluations of the same dataset side by side, row by row. */
export const EvalComparePage = () => {
  const search = useSearch({ from: "/app/eval/compare" })
  const comparison = useQuery({
    queryKey: ["eval", "compare", search.run_1, search.run_2],
    queryFn: () => api((c) => c.eval.compare({ urlParams: { run_id_1: search.run_1 ?? "", run_id_2: search.run_2 ?? "" } })),
    enabled: search.run_1 !== undefined && search.run_2 !== undefined
  })
  return (
    <section aria-labelledby="compare-title">
      <h1 id="compare-title">Two evaluations compared</h1>
      <Query query={comparison}>
        {(c) => {
          const fields = fieldsOf(c)
          return (
            <>
              <p className="muted">
                First: <Link to="/eval/runs/$runId" params={{ runId: c.run_1.id }} className="mono">{c.run_1.id.slice(-8)}</Link> (v{c.run_1.version}) · second:
                {" "}
                <Link to="/eval/runs/$runId" params={{ runId: c.run_2.id }} className="mono">{c.run_2.id.slice(-8)}</Link> (v{c.run_2.version})
              </p>
              <DeltaChart comparison={c} />
              <table className="grid" aria-label="Rows compared">
                <thead>
                  <tr>
                    <th>#</th>
                    <th>inputs</th>
                    {fields.map((f) => <th key={f}>{f}: first → second (Δ)</th>)}
                  </tr>
                </thead>
                <tbody>
                  {c.pairs.map((p) => (
                    <tr key={p.row_id}>
                      <td>{p.position + 1}</td>
                      <td className="mono">{JSON.stringify(p.inputs)}</td>
                      {fields.map((f) => {
                        const d = p.score_deltas[f]
                        return (
                          <td key={f} className={typeof d === "number" ? (d > 0 ? "delta up" : d < 0 ? "delta down" : "delta") : undefined}>
                            {score(p.result_1, f)} → {score(p.result_2, f)}
                            {typeof d === "number" && ` (${d > 0 ? "+" : ""}${Number(d.toFixed(2))})`}
                          </td>
                        )
                      })}
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )
        }}
      </Query>
    </section>
  )
}
