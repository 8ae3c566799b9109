import type { RunEvent } from "../../api/runEvents"
import { duration, Json, StatusBadge } from "../../ui/Bits"

interface StepView {
  readonly step_id: string
  readonly node_id: string
  readonly node_type: string
  readonly node_name?: string | undefined
  readonly status: string
  readonly attempt: number
  readonly output?: unknown
  readonly error?: string | undefined
  readonly token_usage: Readonly<Record<string, { readonly total_tokens: number }>>
  readonly started_at?: Date | undefined
  readonly finished_at?: Date | undefined
}

/** What a step's model was given, from the trace (the API shows it by role). */
export type StepInputs = ReadonlyMap<string, Readonly<Record<string, unknown>>>

/**
 * The run's steps in order: status, timing, tokens, what each was given and what it produced or
 * why it failed; a step still running shows its tokens as they stream in.
 */
export const RunSteps = (
  { steps, events, inputs }: { readonly steps: ReadonlyArray<StepView>; readonly events: ReadonlyArray<RunEvent>; readonly inputs: StepInputs }
) => {
  const streamed = new Map<string, string>()
  for (const e of events) if (e.type === "token") streamed.set(e.step_id, (streamed.get(e.step_id) ?? "") + e.delta)
  const started = events.flatMap((e) => (e.type === "step_started" && !steps.some((s) => s.step_id === e.step_id) ? [e] : []))
  return (
    <ol className="steps">
      {steps.map((step) => {
        const tokens = Object.values(step.token_usage).reduce((n, u) => n + u.total_tokens, 0)
        const input = inputs.get(step.step_id)
        return (
          <li key={step.step_id} className="step">
            <div className="step-head">
              <strong>{step.node_name ?? step.node_id}</strong> <span className="muted">{step.node_type}</span> <StatusBadge status={step.status} />
              <span className="muted">
                {duration(step.started_at, step.finished_at)}
                {tokens > 0 ? ` · ${tokens} tokens` : ""}
                {step.attempt > 1 ? ` · attempt ${step.attempt}` : ""}
              </span>
            </div>
            {input !== undefined && <Json label="Input" value={input} />}
            {step.status === "running" && streamed.has(step.step_id) && <pre className="streaming" aria-live="polite">{streamed.get(step.step_id)}</pre>}
            {step.output !== undefined && <Json label="Output" value={step.output} />}
            {step.error !== undefined && <p className="error-text">{step.error}</p>}
          </li>
        )
      })}
      {started.map((e) => (
        <li key={e.step_id} className="step">
          <div className="step-head">
            <strong>{e.node_id}</strong> <StatusBadge status="running" />
          </div>
          {streamed.has(e.step_id) && <pre className="streaming" aria-live="polite">{streamed.get(e.step_id)}</pre>}
        </li>
      ))}
    </ol>
  )
}
