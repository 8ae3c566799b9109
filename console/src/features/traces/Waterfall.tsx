import { useState } from "react"
import { Empty } from "../../ui/States"
import { type SpanRow, waterfall } from "./spans"

const label = (row: SpanRow) => {
  const a = row.attributes
  if (row.span.name === "llm.call") return `model ${String(a["gen_ai.response.model"] ?? a["gen_ai.request.model"] ?? "call")}`
  return row.span.name
}

const tokens = (row: SpanRow) => {
  const input = row.attributes["gen_ai.usage.input_tokens"]
  const output = row.attributes["gen_ai.usage.output_tokens"]
  return input === undefined && output === undefined ? undefined : `${String(input ?? 0)} in / ${String(output ?? 0)} out tokens`
}

const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 1000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(2)} s`)

/**
 * A run's spans as a waterfall: nested under their parents, bars to scale, HITL pause and resume
 * marks, model calls with their tokens, failures in red. What each attribute shows follows the
 * caller's role (the API redacts it).
 */
export const Waterfall = ({ resourceSpans, truncated }: { readonly resourceSpans: ReadonlyArray<unknown>; readonly truncated: boolean }) => {
  const { rows, totalMs } = waterfall(resourceSpans)
  const [open, setOpen] = useState<string | undefined>(undefined)
  if (rows.length === 0) return <Empty>No spans yet.</Empty>
  return (
    <div className="waterfall" role="table" aria-label="Trace waterfall">
      <div className="wf-head" role="row">
        <span role="columnheader">Span</span>
        <span role="columnheader">0 — {fmt(totalMs)}</span>
      </div>
      {truncated && <p className="muted">The trace was larger than the size cap: some values are shortened.</p>}
      {rows.map((row) => {
        const left = (row.startMs / totalMs) * 100
        const width = Math.max(0.4, (row.durationMs / totalMs) * 100)
        const isOpen = open === row.span.spanId
        return (
          <div key={row.span.spanId} className={`wf-row${row.failed ? " failed" : ""}`} role="row">
            <button
              type="button"
              className="wf-name"
              style={{ paddingLeft: `${row.depth * 14 + 6}px` }}
              aria-expanded={isOpen}
              onClick={() => setOpen(isOpen ? undefined : row.span.spanId)}
            >
              {label(row)} <span className="muted">{fmt(row.durationMs)}</span>
              {tokens(row) !== undefined && <span className="muted">· {tokens(row)}</span>}
            </button>
            <div className="wf-track" role="cell" aria-label={`${label(row)} from ${fmt(row.startMs)} for ${fmt(row.durationMs)}`}>
              <div className="wf-bar" style={{ left: `${left}%`, width: `${width}%` }} />
              {row.marks.map((m, i) => (
                <span key={i} className={`wf-mark ${m.name}`} style={{ left: `${(m.atMs / totalMs) * 100}%` }} title={`${m.name} at ${fmt(m.atMs)}`} />
              ))}
            </div>
            {isOpen && (
              <dl className="wf-detail">
                {Object.entries(row.attributes).map(([k, v]) => (
                  <div key={k}>
                    <dt>{k}</dt>
                    <dd>{String(v)}</dd>
                  </div>
                ))}
                {row.marks.map((m, i) => (
                  <div key={`m${i}`}>
                    <dt>event</dt>
                    <dd>{m.name} at {fmt(m.atMs)}</dd>
                  </div>
                ))}
                {row.span.status?.message !== undefined && (
                  <div>
                    <dt>error</dt>
                    <dd>{row.span.status.message}</dd>
                  </div>
                )}
              </dl>
            )}
          </div>
        )
      })}
    </div>
  )
}
