import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useEffect, useState } from "react"
import type { Document } from "../../../../schemas/Docgen"
import { api } from "../../api/client"
import { useRunEvents } from "../../api/runEvents"
import { ErrorState } from "../../ui/States"

/** Generation by an AI Employee, followed live on its run's stream; the document is read again when the run ends. */
export const GeneratePanel = ({ doc, runId, onStarted, onWritten }: {
  readonly doc: Document
  /** The generation followed, kept by the page across the reload its new version causes. */
  readonly runId: string | undefined
  readonly onStarted: (runId: string) => void
  readonly onWritten: () => void
}) => {
  const queryClient = useQueryClient()
  const employees = useQuery({
    queryKey: ["ai-employees", "names"],
    queryFn: () => api((c) => c.workflows.list({ urlParams: { page_size: 100, archived: false } })),
    staleTime: 0
  })
  const [workflowId, setWorkflowId] = useState(doc.workflow_id ?? "")
  const [instructions, setInstructions] = useState("")
  const start = useMutation({
    mutationFn: () =>
      api((c) =>
        c.docgen.generate({
          path: { id: doc.id },
          payload: { ...(workflowId !== "" ? { workflow_id: workflowId } : {}), ...(instructions.trim() !== "" ? { instructions } : {}) }
        })
      ),
    onSuccess: (r) => onStarted(r.run_id)
  })
  const { events, state } = useRunEvents(runId ?? "", runId !== undefined)
  const ended = events.some((e) => e.type === "run_completed" || e.type === "run_failed" || e.type === "run_cancelled")
  useEffect(() => {
    if (ended) {
      void queryClient.invalidateQueries({ queryKey: ["documents"] })
      onWritten()
    }
  }, [ended, onWritten, queryClient])
  const submit = (e: FormEvent) => {
    e.preventDefault()
    start.mutate()
  }
  const steps = events.filter((e) => e.type === "step_started" || e.type === "step_completed" || e.type === "step_failed")
  const text = events.flatMap((e) => (e.type === "token" ? [e.delta] : [])).join("")
  return (
    <section aria-label="Generate">
      <h3>Generate</h3>
      <form onSubmit={submit} className="settings-form">
        <label>
          AI Employee
          <select value={workflowId} onChange={(e) => setWorkflowId(e.target.value)}>
            <option value="">the document's own</option>
            {(employees.data?.items ?? []).map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
          </select>
        </label>
        <label>
          Instructions <textarea rows={2} value={instructions} onChange={(e) => setInstructions(e.target.value)} />
        </label>
        <button type="submit" disabled={start.isPending || (runId !== undefined && !ended)}>Generate</button>
      </form>
      {start.error !== null && <ErrorState error={start.error} />}
      {runId !== undefined && (
        <div role="status" aria-label="Generation" className="generation">
          <p className="muted small">
            {ended
              ? events.some((e) => e.type === "run_completed") ? "Written." : "The run did not finish."
              : state === "retrying"
              ? "Reconnecting…"
              : "Writing…"}
          </p>
          <ul>{steps.map((e) => <li key={e.id}>{e.type.replace("_", " ")} {"node_id" in e ? e.node_id : ""}</li>)}</ul>
          {text !== "" && !ended && <pre className="streaming">{text}</pre>}
        </div>
      )}
    </section>
  )
}
