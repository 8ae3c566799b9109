import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Link } from "@tanstack/react-router"
import { api } from "../../api/client"
import { allows, useSession } from "../../api/session"
import { When } from "../../ui/Bits"
import { Empty, ErrorState, Query } from "../../ui/States"
import { useEmployeeNames } from "../runs/runsApi"
import { HitlCard } from "./HitlCard"

const Nudges = () => {
  const queryClient = useQueryClient()
  const nudges = useQuery({ queryKey: ["nudges"], queryFn: () => api((c) => c.nudges.list()), refetchInterval: 10_000 })
  const respond = useMutation({
    mutationFn: (a: { readonly id: string; readonly value: string }) => api((c) => c.nudges.respond({ path: { id: a.id as never }, payload: { value: a.value } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["nudges"] })
  })
  return (
    <section aria-labelledby="nudges-title">
      <h2 id="nudges-title">Nudge cards</h2>
      <Query query={nudges} empty={(n) => n.items.length === 0 ? <Empty>No open cards.</Empty> : undefined}>
        {(n) => n.items.map((card) => (
          <article key={card.id} className="card">
            <header><h3>{card.title ?? "A card"}</h3><span className="muted">{card.mode} · <When at={card.created_at} /></span></header>
            {card.body !== null && <p>{card.body}</p>}
            <p className="muted">From run <Link to="/runs/$runId" params={{ runId: card.run_id }} className="mono">{card.run_id.slice(0, 8)}</Link></p>
            <div className="answer">
              {card.actions.map((a) => (
                <button key={a.value} type="button" disabled={respond.isPending} onClick={() => respond.mutate({ id: card.id, value: a.value })}>{a.label}</button>
              ))}
            </div>
          </article>
        ))}
      </Query>
      {respond.error !== null && <ErrorState error={respond.error} />}
    </section>
  )
}

/** What waits for the caller: HITL requests they may answer, newest first, and their open nudge cards. */
export const InboxPage = () => {
  const session = useSession()
  const names = useEmployeeNames()
  const pending = useQuery({
    queryKey: ["hitl", "pending"],
    queryFn: () => api((c) => c.hitl.pending({ urlParams: { page: 1, page_size: 100 } })),
    refetchInterval: 5_000
  })
  const employee = new Map((names.data?.items ?? []).map((w) => [w.id as string, w.name]))
  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">Inbox</h1>
      <Query query={pending} empty={(p) => p.items.length === 0 ? <Empty>Nothing waits for you.</Empty> : undefined}>
        {(p) => (
          <div className="cards">
            {[...p.items].sort((a, b) => b.created_at.getTime() - a.created_at.getTime()).map((r) => (
              <HitlCard key={r.request_id} request={r} employee={employee.get(r.workflow_id)} canCancel={allows(session.data?.user.role, "answerAnyHitl")} />
            ))}
          </div>
        )}
      </Query>
      <Nudges />
    </section>
  )
}
