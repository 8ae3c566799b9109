import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Link } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import type { Nudge } from "../../../../schemas/Nudge"
import { api } from "../../api/client"
import { shortId, StatusBadge, When } from "../../ui/Bits"
import { Empty, ErrorState, Query } from "../../ui/States"

const FreeAnswer = ({ busy, onAnswer }: { readonly busy: boolean; readonly onAnswer: (value: string) => void }) => {
  const [text, setText] = useState("")
  const submit = (e: FormEvent) => {
    e.preventDefault()
    onAnswer(text)
  }
  return (
    <form className="answer" onSubmit={submit}>
      <label>
        Your answer <input value={text} onChange={(e) => setText(e.target.value)} required />
      </label>
      <button type="submit" className="primary" disabled={busy || text.trim() === ""}>Send</button>
    </form>
  )
}

/** A nudge card addressed to the caller: what it says, its run, its actions or a free answer. */
const NudgeCard = ({ card, onAnswered }: { readonly card: Nudge; readonly onAnswered: (said: string) => void }) => {
  const queryClient = useQueryClient()
  const respond = useMutation({
    mutationFn: (value: string) => api((c) => c.nudges.respond({ path: { id: card.id }, payload: { value } })),
    onSuccess: (_, value) => {
      onAnswered(`You answered “${card.actions.find((a) => a.value === value)?.label ?? value}” to ${card.title ?? "a card"}.`)
      return queryClient.invalidateQueries({ queryKey: ["nudges"] })
    }
  })
  return (
    <article className="card" aria-labelledby={`nudge-${card.id}`}>
      <header>
        <h3 id={`nudge-${card.id}`}>{card.title ?? "A card"}</h3>
        <StatusBadge status={card.status} />
      </header>
      {card.body !== null && <p>{card.body}</p>}
      <p className="muted">
        {card.mode} · from run <Link to="/runs/$runId" params={{ runId: card.run_id }} className="mono">{shortId(card.run_id)}</Link> ·{" "}
        <When at={card.created_at} />
        {card.expires_at !== null && card.status === "open" && (
          <>
            · expires <When at={card.expires_at} />
          </>
        )}
      </p>
      {card.mode !== "notify" && (card.actions.length > 0
        ? (
          <div className="answer" role="group" aria-label="Answers">
            {card.actions.map((a) => (
              <button key={a.value} type="button" disabled={respond.isPending} onClick={() => respond.mutate(a.value)}>{a.label}</button>
            ))}
          </div>
        )
        : <FreeAnswer busy={respond.isPending} onAnswer={(v) => respond.mutate(v)} />)}
      {respond.error !== null && <ErrorState error={respond.error} />}
    </article>
  )
}

/** The caller's open nudge cards (`GET /workflow/nudges`), answered in place; an answered card leaves the list. */
export const NudgeCards = () => {
  const nudges = useQuery({ queryKey: ["nudges"], queryFn: () => api((c) => c.nudges.list()), refetchInterval: 10_000 })
  const [answered, setAnswered] = useState<string | undefined>(undefined)
  return (
    <section aria-labelledby="nudges-title">
      <h2 id="nudges-title">Nudge cards</h2>
      <p role="status" className="muted">{answered}</p>
      <Query query={nudges} empty={(n) => n.items.length === 0 ? <Empty>No open cards for you.</Empty> : undefined}>
        {(n) => <div className="cards">{n.items.map((card) => <NudgeCard key={card.id} card={card} onAnswered={setAnswered} />)}</div>}
      </Query>
    </section>
  )
}
