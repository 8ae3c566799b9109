import { Link } from "@tanstack/react-router"
import { Json, shortId, StatusBadge } from "../../ui/Bits"
import { SchemaForm } from "../../ui/SchemaForm"
import { retryAfterOf, TryLater, useCountdown } from "../../ui/TryLater"
import type { Finding } from "./Canvas"
import type { Json as JsonValue } from "./dagDoc"

export interface Located extends Finding {
  readonly node_id?: string | undefined
}

/** Every finding of the last save or publish, each naming its node: a click selects it on the canvas. */
export const Problems = ({ findings, onSelect }: { readonly findings: ReadonlyArray<Located>; readonly onSelect: (id: string) => void }) =>
  findings.length === 0 ? null : (
    <section className="problems" aria-label="Problems">
      <h3>{findings.some((f) => f.severity === "error") ? "Publishing is blocked" : "Warnings"}</h3>
      <p className="muted small">As the last save or publish found them, and each node's fields as they are now.</p>
      <ul className="findings">
        {findings.map((f, i) => (
          <li key={i} className={f.severity}>
            <strong>{f.severity === "error" ? "Blocks publishing" : "Warning"}</strong>{" "}
            {f.node_id !== undefined ? <button type="button" className="link" onClick={() => onSelect(f.node_id!)}>{f.node_id}</button> : null} {f.message}{" "}
            <span className="mono muted">{f.code}</span>
          </li>
        ))}
      </ul>
    </section>
  )

/**
 * Test before publishing: a dry run of the canvas (saved first) with a form of the start node's
 * inputs; its steps light up on the canvas. With a past run opened, its input is the form's
 * starting point: edit it and run the draft again.
 */
export const TestPanel = ({ inputSchema, run, busy, error, onRun }: {
  readonly inputSchema: JsonValue
  readonly run: {
    readonly id: string
    readonly status: string
    readonly is_dry_run: boolean
    readonly version: number
    readonly input_params: Readonly<Record<string, unknown>>
    readonly error?: string | undefined
  } | undefined
  readonly busy: boolean
  readonly error: unknown
  readonly onRun: (input: JsonValue) => void
}) => {
  // A dry run refused for now (the workspace's start rate, or its share of a busy platform) waits out its Retry-After.
  const wait = useCountdown(retryAfterOf(error))
  return (
    <aside className="side-panel" aria-label="Test">
      <header>
        <h2>Test the draft</h2>
        <span className="muted">A dry run: no tool with side effects is called</span>
      </header>
      {run !== undefined && (
        <p className="run-line">
          {run.is_dry_run ? "Dry run" : "Run"} <Link to="/runs/$runId" params={{ runId: run.id }} className="mono">{shortId(run.id)}</Link> of version{" "}
          {run.version} <StatusBadge status={run.status} />
          {run.error !== undefined && <span className="error-text">{run.error}</span>}
        </p>
      )}
      <SchemaForm
        key={run?.id ?? "new"}
        schema={inputSchema}
        initial={run?.input_params}
        submitLabel={run !== undefined ? "Run the draft with this input" : "Run the draft"}
        busy={busy || wait > 0}
        onSubmit={onRun}
      />
      {error !== null && error !== undefined && <TryLater error={error} left={wait} />}
    </aside>
  )
}

/** A step of the run shown on the canvas: what it was given and what it gave (or why it failed). */
export const StepInRun = ({ detail }: { readonly detail: { readonly input?: unknown; readonly output?: unknown; readonly error?: string } }) => (
  <section className="step-in-run" aria-label="This step in the run">
    <h3>In the run shown</h3>
    {detail.input !== undefined && <Json label="Input" value={detail.input} />}
    {detail.output !== undefined && <Json label="Output" value={detail.output} />}
    {detail.error !== undefined && <p className="error-text">{detail.error}</p>}
  </section>
)
