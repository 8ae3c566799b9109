import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query"
import { Link, useNavigate } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import { Priorities, TicketStatus } from "../../../../schemas/Ticketing"
import { api } from "../../api/client"
import { StatusBadge, When } from "../../ui/Bits"
import { Empty, ErrorState, Loading } from "../../ui/States"

export interface TicketFilters {
  readonly status?: string | undefined
  readonly priority?: string | undefined
  readonly q?: string | undefined
  readonly sort?: string | undefined
  readonly order?: string | undefined
}

// The ranks the service sorts by, in words (02: priority asc is Critical to Low).
const ORDER_WORDS: Record<string, readonly [string, string]> = {
  priority: ["critical first", "low first"],
  status: ["open first", "closed first"],
  number: ["oldest first", "newest first"],
  updated_at: ["least recently updated first", "most recently updated first"]
}

const NewTicket = ({ groupId, done }: { readonly groupId: string; readonly done: () => void }) => {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [title, setTitle] = useState("")
  const [description, setDescription] = useState("")
  const [priority, setPriority] = useState<(typeof Priorities)[number]>("MEDIUM")
  // One id per form: a retried submit (a lost answer) raises no second ticket.
  const [clientRequestId] = useState(() => crypto.randomUUID())
  const create = useMutation({
    mutationFn: () =>
      api((c) =>
        c.ticketing.createTicket({ path: { groupID: groupId }, payload: { title, description, priority, tags: [], client_request_id: clientRequestId } })
      ),
    onSuccess: async (t) => {
      await queryClient.invalidateQueries({ queryKey: ["tickets"] })
      done()
      await navigate({ to: "/tickets/$groupId/$ticketId", params: { groupId, ticketId: t.id } })
    }
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate()
  }
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="New ticket">
      <h2>New ticket</h2>
      <label>
        Title <input value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={500} />
      </label>
      <label>
        Description <textarea rows={4} value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <label>
        Priority
        <select value={priority} onChange={(e) => setPriority(e.target.value as typeof priority)}>
          {Priorities.map((p) => <option key={p} value={p}>{p.toLowerCase()}</option>)}
        </select>
      </label>
      {create.error !== null && <ErrorState error={create.error} />}
      <div className="card-actions">
        <button type="submit" className="primary" disabled={create.isPending || title.trim() === ""}>Raise ticket</button>
        <button type="button" onClick={done}>Cancel</button>
      </div>
    </form>
  )
}

/** A queue's tickets with the documented filters and sorts, 25 at a time (opaque cursor), and a ticket raised there. */
export const TicketList = ({ groupId, filters, setFilters }: {
  readonly groupId: string
  readonly filters: TicketFilters
  readonly setFilters: (f: TicketFilters) => void
}) => {
  const [creating, setCreating] = useState(false)
  const [q, setQ] = useState(filters.q ?? "")
  const tickets = useInfiniteQuery({
    queryKey: ["tickets", "list", groupId, filters],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      api((c) =>
        c.ticketing.tickets({
          path: { groupID: groupId },
          urlParams: {
            ...(filters.status !== undefined ? { status: filters.status as typeof TicketStatus.Type } : {}),
            ...(filters.priority !== undefined ? { priority: filters.priority as (typeof Priorities)[number] } : {}),
            ...(filters.q !== undefined ? { q: filters.q } : {}),
            ...(filters.sort !== undefined ? { sort: filters.sort, order: filters.order === "asc" ? "asc" : "desc" } : {}),
            ...(pageParam !== undefined ? { cursor: pageParam } : {})
          }
        })
      ),
    getNextPageParam: (last) => last.next_cursor ?? undefined
  })
  const set = (key: keyof TicketFilters, value: string) => setFilters({ ...filters, [key]: value === "" ? undefined : value })
  const sortable = tickets.data?.pages[0]?.sortable_by ?? ["number", "priority", "status", "updated_at"]
  const items = tickets.data?.pages.flatMap((p) => p.items) ?? []
  return (
    <div>
      {creating
        ? <NewTicket groupId={groupId} done={() => setCreating(false)} />
        : <button type="button" className="primary" onClick={() => setCreating(true)}>New ticket</button>}
      <form
        className="filters"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault()
          set("q", q)
        }}
      >
        <label>
          Search <input aria-label="Search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Title or description" />
        </label>
        <label>
          Status
          <select aria-label="Status" value={filters.status ?? ""} onChange={(e) => set("status", e.target.value)}>
            <option value="">any</option>
            {TicketStatus.literals.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label>
          Priority
          <select aria-label="Priority" value={filters.priority ?? ""} onChange={(e) => set("priority", e.target.value)}>
            <option value="">any</option>
            {Priorities.map((p) => <option key={p} value={p}>{p}</option>)}
          </select>
        </label>
        <label>
          Sort
          <select aria-label="Sort" value={filters.sort ?? ""} onChange={(e) => set("sort", e.target.value)}>
            <option value="">newest</option>
            {sortable.map((s) => <option key={s} value={s}>{s.replace("_", " ")}</option>)}
          </select>
        </label>
        {filters.sort !== undefined && (
          <label>
            Order
            <select aria-label="Order" value={filters.order ?? "desc"} onChange={(e) => set("order", e.target.value)}>
              <option value="asc">{ORDER_WORDS[filters.sort]?.[0] ?? "ascending"}</option>
              <option value="desc">{ORDER_WORDS[filters.sort]?.[1] ?? "descending"}</option>
            </select>
          </label>
        )}
      </form>
      {tickets.isPending ?
        <Loading /> :
        tickets.error !== null ?
        <ErrorState error={tickets.error} /> :
        items.length === 0 ?
        <Empty>No ticket here.</Empty> :
        (
          <table className="grid" aria-label="Tickets">
            <thead>
              <tr>
                <th>#</th>
                <th>title</th>
                <th>status</th>
                <th>priority</th>
                <th>assignee</th>
                <th>updated</th>
              </tr>
            </thead>
            <tbody>
              {items.map((t) => (
                <tr key={t.id}>
                  <td>{t.number}</td>
                  <td>
                    <Link to="/tickets/$groupId/$ticketId" params={{ groupId: t.group_id, ticketId: t.id }}>{t.title}</Link>
                  </td>
                  <td>
                    <StatusBadge status={t.status.toLowerCase()} />
                  </td>
                  <td>{t.priority.toLowerCase()}</td>
                  <td>{t.assignee_email ?? "—"}</td>
                  <td>
                    <When at={t.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      {tickets.hasNextPage && <button type="button" onClick={() => void tickets.fetchNextPage()} disabled={tickets.isFetchingNextPage}>More</button>}
    </div>
  )
}
