import { Bar, CartesianGrid, ComposedChart, Legend, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis } from "recharts"
import type { EvalRun } from "../../../../schemas/Eval"

/** A run's aggregate scores per rubric field: the mean as a bar, the median as a dot, p5 and p95 as crosses; the same numbers in a table. */
export const ScoreChart = ({ run }: { readonly run: EvalRun }) => {
  const data = Object.entries(run.aggregate_metrics.rubric_scores).map(([field, s]) => ({
    field,
    mean: s.mean,
    median: s.median,
    p5: s.p5,
    p95: s.p95
  }))
  if (data.length === 0) return <p className="muted">No scores yet.</p>
  return (
    <figure className="chart" aria-label="Scores by rubric field">
      <ResponsiveContainer width="100%" height={260}>
        <ComposedChart data={data} margin={{ top: 10, right: 20, bottom: 10, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="field" />
          <YAxis />
          <Tooltip />
          <Legend />
          <Bar dataKey="mean" name="mean" fill="#2f4fdb" isAnimationActive={false} />
          <Scatter dataKey="median" name="median" fill="#c0362c" isAnimationActive={false} />
          <Scatter dataKey="p5" name="p5" fill="#1c2430" shape="cross" isAnimationActive={false} />
          <Scatter dataKey="p95" name="p95" fill="#a15c00" shape="cross" isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
      <table className="grid" aria-label="Scores">
        <thead>
          <tr>
            <th>field</th>
            <th>mean</th>
            <th>median</th>
            <th>p5</th>
            <th>p95</th>
          </tr>
        </thead>
        <tbody>
          {data.map((d) => (
            <tr key={d.field}>
              <td>{d.field}</td>
              <td>{d.mean.toFixed(2)}</td>
              <td>{d.median.toFixed(2)}</td>
              <td>{d.p5.toFixed(2)}</td>
              <td>{d.p95.toFixed(2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  )
}
