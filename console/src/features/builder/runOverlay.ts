import { useMemo } from "react"
import { useRunEvents } from "../../api/runEvents"
import { isTerminal, useRun, useSteps, useTrace } from "../runs/runApi"
import { stepInputs } from "../traces/spans"

const short = (value: unknown) => {
  if (value === undefined) return undefined
  const text = typeof value === "object" && value !== null && "text" in value && typeof value.text === "string" ? value.text : JSON.stringify(value)
  return text.length > 140 ? `${text.slice(0, 140)}…` : text
}

/**
 * A run's steps laid over the canvas: each node's status as it changes (the live stream, then the
 * stored steps), its output or error, and what it was given (from the trace), by node id.
 */
export const useRunOverlay = (runId: string | undefined) => {
  const id = runId ?? ""
  const run = useRun(id, runId !== undefined)
  const found = run.data !== undefined
  const live = found && !isTerminal(run.data.status)
  const steps = useSteps(id, { enabled: found, live })
  const trace = useTrace(id, { enabled: found && !live, live: false })
  const { events } = useRunEvents(id, found && live)
  const inputs = useMemo(
    () => (trace.data !== undefined ? stepInputs(trace.data.traces.resourceSpans) : new Map<string, Readonly<Record<string, unknown>>>()),
    [trace.data]
  )
  const { status, output, input, detail } = useMemo(() => {
    const status = new Map<string, string>()
    for (const e of events) {
      if (!("node_id" in e)) continue
      if (e.type === "step_started") status.set(e.node_id, "running")
      if (e.type === "step_completed") status.set(e.node_id, "completed")
      if (e.type === "step_failed") status.set(e.node_id, "failed")
      if (e.type === "step_skipped") status.set(e.node_id, "skipped")
    }
    const output = new Map<string, string>()
    const input = new Map<string, string>()
    const detail = new Map<string, { readonly input?: unknown; readonly output?: unknown; readonly error?: string }>()
    for (const s of steps.data?.items ?? []) {
      // A step the stream has not reported yet takes its stored status; a later event wins.
      if (!status.has(s.node_id) || isTerminal(s.status)) status.set(s.node_id, s.status)
      const text = s.error ?? short(s.output)
      if (text !== undefined) output.set(s.node_id, text)
      const given = inputs.get(s.step_id)
      const shown = short(given?.input ?? given?.instructions)
      if (shown !== undefined) input.set(s.node_id, shown)
      detail.set(s.node_id, {
        ...(inputs.has(s.step_id) ? { input: inputs.get(s.step_id) } : {}),
        ...(s.output !== undefined ? { output: s.output } : {}),
        ...(s.error !== undefined ? { error: s.error } : {})
      })
    }
    return { status, output, input, detail }
  }, [events, steps.data, inputs])
  return { run: run.data, error: run.error, status, output, input, detail }
}
