import { useMutation, useQueryClient } from "@tanstack/react-query"
import { Link } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import type { HitlRequest } from "../../../../schemas/Run"
import { api } from "../../api/client"
import { shortId, StatusBadge, When } from "../../ui/Bits"
import { SchemaForm } from "../../ui/SchemaForm"
import { ErrorState } from "../../ui/States"

const Approval = ({ onAnswer, busy }: { readonly onAnswer: (r: unknown) => void; readonly busy: boolean }) => {
  const [comment, setComment] = useState("")
  return (
    <div className="answer">
      <label>
        Comment <input value={comment} onChange={(e) => setComment(e.target.value)} />
      </label>
      <button type="button" className="primary" disabled={busy} onClick={() => onAnswer({ approved: true, comment })}>Approve</button>
      <button type="button" disabled={busy} onClick={() => onAnswer({ approved: false, comment })}>Reject</button>
    </div>
  )
}

const Choice = ({ choices, onAnswer, busy }: { readonly choices: ReadonlyArray<string>; readonly onAnswer: (r: unknown) => void; readonly busy: boolean }) => (
  <div className="answer" role="group" aria-label="Choices">
    {choices.map((c) => <button key={c} type="button" disabled={busy} onClick={() => onAnswer({ type: "choice", value: c })}>{c}</button>)}
  </div>
)

const FreeText = ({ onAnswer, busy }: { readonly onAnswer: (r: unknown) => void; readonly busy: boolean }) => {
  const [text, setText] = useState("")
  const submit = (e: FormEvent) => {
    e.preventDefault()
    onAnswer({ type: "freetext", value: text })
  }
  return (
    <form className="answer" onSubmit={submit}>
      <label>
        Your answer <textarea value={text} onChange={(e) => setText(e.target.value)} required rows={3} />
      </label>
      <button type="submit" className="primary" disabled={busy || text.trim() === ""}>Send</button>
    </form>
  )
}

/** One request waiting for a person: what it asks, its run and AI Employee, claim, answer, cancel. */
export const HitlCard = ({ request, employee, canCancel, respond }: {
  readonly request: HitlRequest
  readonly employee: string | undefined
  readonly canCancel: boolean
  /** How the answer is sent, when not by /hitl/{id}/respond (a chat answers through its session). */
  readonly respond?: (response: unknown) => Promise<unknown>
}) => {
  const queryClient = useQueryClient()
  const refresh = () =>
    Promise.all([queryClient.invalidateQueries({ queryKey: ["hitl"] }), queryClient.invalidateQueries({ queryKey: ["run", request.run_id] })])
  const act = useMutation({
    mutationFn: (action: { readonly kind: "respond"; readonly response: unknown } | { readonly kind: "claim" } | { readonly kind: "cancel" }) =>
      action.kind === "respond"
        ? respond !== undefined
          ? respond(action.response)
          : api((c) => c.hitl.respond({ path: { request_id: request.request_id }, payload: { response: action.response } }))
        : action.kind === "claim"
        ? api((c) => c.hitl.claim({ path: { request_id: request.request_id } }))
        : api((c) => c.hitl.cancel({ path: { request_id: request.request_id } })),
    onSuccess: refresh
  })
  const answer = (response: unknown) => act.mutate({ kind: "respond", response })
  const busy = act.isPending
  return (
    <article className="card" aria-labelledby={`hitl-${request.request_id}`}>
      <header>
        <h2 id={`hitl-${request.request_id}`}>{request.prompt}</h2>
        <StatusBadge status={request.status} />
      </header>
      <p className="muted">
        {request.type.replace("_", " ")} · {employee ?? "AI Employee"} · run{" "}
        <Link to="/runs/$runId" params={{ runId: request.run_id }} className="mono">{shortId(request.run_id)}</Link> at {request.node_id} ·{" "}
        <When at={request.created_at} />
      </p>
      {request.type === "approval" && <Approval onAnswer={answer} busy={busy} />}
      {request.type === "ask_human" && (request.choices !== undefined && request.choices.length > 0
        ? <Choice choices={request.choices} onAnswer={answer} busy={busy} />
        : <FreeText onAnswer={answer} busy={busy} />)}
      {request.type === "form" && <SchemaForm schema={request.form_schema} submitLabel="Submit" busy={busy} onSubmit={(form_data) => answer({ form_data })} />}
      <div className="card-actions">
        {request.status === "pending" && <button type="button" disabled={busy} onClick={() => act.mutate({ kind: "claim" })}>Claim</button>}
        {canCancel && <button type="button" className="danger" disabled={busy} onClick={() => act.mutate({ kind: "cancel" })}>Cancel request</button>}
      </div>
      {act.error !== null && <ErrorState error={act.error} />}
    </article>
  )
}
