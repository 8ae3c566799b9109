import { useQuery } from "@tanstack/react-query"
import { api } from "../../api/client"
import { allows, useSession } from "../../api/session"
import { Empty, Query } from "../../ui/States"
import { useEmployeeNames } from "../runs/runsApi"
import { HitlCard } from "./HitlCard"
import { NudgeCards } from "./NudgeCards"

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
      <NudgeCards />
    </section>
  )
}
