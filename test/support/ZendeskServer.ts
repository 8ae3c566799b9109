import { Context, Effect, Layer } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { freePort } from "../../platform/FreePort.js"

/**
 * A loopback Zendesk Support API v2 for the connected-queue tests: the documented requests and
 * answers of tickets (create with Idempotency-Key, show, update with a comment, delete), comments,
 * audits, search (the query terms the connector sends, sort_by/sort_order, page/per_page), users
 * (show_many, search) and groups, behind `{email}/token:{api_token}` basic auth. `mode` turns it
 * into a refusing (403), failing (503 with Retry-After), throttling (429) or stalled server.
 */
export interface ZTicket {
  id: number
  subject: string
  description: string
  status: string
  priority: string | null
  type: string | null
  tags: Array<string>
  requester_id: number
  submitter_id: number
  assignee_id: number | null
  group_id: number | null
  external_id: string | null
  created_at: string
  updated_at: string
}
interface ZUser {
  id: number
  email: string
  name: string
  role: string
}
interface ZComment {
  id: number
  author_id: number
  body: string
  public: boolean
  created_at: string
}
interface ZEvent {
  type: string
  field_name?: string
  value?: unknown
  previous_value?: unknown
  body?: string
  public?: boolean
}
interface ZAudit {
  id: number
  ticket_id: number
  author_id: number
  created_at: string
  events: Array<ZEvent>
}

export type ZendeskMode = "ok" | "forbidden" | "failing" | "throttled" | "stalled"

export interface ZendeskState {
  readonly baseUrl: string
  readonly email: string
  readonly token: string
  readonly tickets: Map<number, ZTicket>
  readonly users: Array<ZUser>
  readonly groups: Array<{ id: number; name: string }>
  readonly comments: Map<number, Array<ZComment>>
  readonly audits: Map<number, Array<ZAudit>>
  readonly requests: Array<{ method: string; path: string; query: string }>
  mode: ZendeskMode
  /** A change made in Zendesk itself (an agent in its own UI), audited like the API's. */
  readonly changeInZendesk: (ticketId: number, authorId: number, changes: Partial<ZTicket>) => void
}

const PRIORITY_RANK: Record<string, number> = { low: 0, normal: 1, high: 2, urgent: 3 }
const STATUS_RANK: Record<string, number> = { new: 0, open: 1, pending: 2, hold: 3, solved: 4, closed: 5 }
const TYPES = ["problem", "incident", "question", "task"]

export class ZendeskServer extends Context.Tag("ZendeskServer")<ZendeskServer, ZendeskState>() {
  static readonly layer = Layer.scoped(
    ZendeskServer,
    Effect.gen(function*() {
      const port = yield* freePort
      let nextId = 1000
      let clock = Date.parse("2026-01-01T00:00:00Z")
      const now = () => new Date(clock += 1000).toISOString()
      const email = "platform@acme.zendesk.test"
      const token = "zd-token-0123456789"
      const idempotency = new Map<string, number>()
      const state: ZendeskState = {
        baseUrl: `http://127.0.0.1:${port}`,
        email,
        token,
        tickets: new Map(),
        users: [
          { id: 1, email, name: "Platform connection", role: "admin" },
          { id: 2, email: "dana@acme.zendesk.test", name: "Dana Agent", role: "agent" },
          { id: 3, email: "eli@acme.zendesk.test", name: "Eli Agent", role: "agent" }
        ],
        groups: [{ id: 500, name: "Existing Team" }],
        comments: new Map(),
        audits: new Map(),
        requests: [],
        mode: "ok",
        changeInZendesk: (ticketId, authorId, changes) => update(state.tickets.get(ticketId)!, authorId, changes, undefined)
      }

      const userByEmail = (e: string) => state.users.find((u) => u.email.toLowerCase() === e.toLowerCase())
      const audit = (ticketId: number, authorId: number, events: Array<ZEvent>) =>
        state.audits.set(ticketId, [...(state.audits.get(ticketId) ?? []), {
          id: nextId++,
          ticket_id: ticketId,
          author_id: authorId,
          created_at: now(),
          events
        }])
      const addComment = (ticketId: number, authorId: number, body: string, isPublic: boolean) =>
        state.comments.set(ticketId, [...(state.comments.get(ticketId) ?? []), {
          id: nextId++,
          author_id: authorId,
          body,
          public: isPublic,
          created_at: now()
        }])

      function update(t: ZTicket, authorId: number, changes: Partial<ZTicket>, comment: { body: string; public: boolean; author_id?: number } | undefined) {
        const events: Array<ZEvent> = []
        for (const [field, value] of Object.entries(changes) as Array<[keyof ZTicket, unknown]>) {
          if (JSON.stringify(t[field]) === JSON.stringify(value)) continue
          events.push({ type: "Change", field_name: field, value, previous_value: t[field] })
          Object.assign(t, { [field]: value })
        }
        const author = comment?.author_id ?? authorId
        if (comment !== undefined) {
          addComment(t.id, author, comment.body, comment.public)
          events.push({ type: "Comment", body: comment.body, public: comment.public })
        }
        if (events.length > 0) {
          t.updated_at = now()
          audit(t.id, author, events)
        }
      }

      const invalid = (res: ServerResponse, field: string, description: string) =>
        send(res, 422, { error: "RecordInvalid", description: "Record validation errors", details: { [field]: [{ description }] } })

      const matches = (t: ZTicket, query: string) => {
        const terms = query.match(/[a-z_]+(?:>=|<=|[:<>])"[^"]*"|[a-z_]+(?:>=|<=|[:<>])\S+|"[^"]*"|\S+/g) ?? []
        const byKey = new Map<string, Array<string>>()
        for (const term of terms) {
          const m = /^([a-z_]+)(>=|<=|[:<>])(.*)$/.exec(term)
          const key = m === null ? "text" : `${m[1]}${m[2] === ":" ? "" : m[2]}`
          const value = (m === null ? term : m[3]).replace(/^"|"$/g, "")
          byKey.set(key, [...(byKey.get(key) ?? []), value])
        }
        const any = (key: string, test: (v: string) => boolean) => !byKey.has(key) || byKey.get(key)!.some(test)
        const all = (key: string, test: (v: string) => boolean) => !byKey.has(key) || byKey.get(key)!.every(test)
        const emailOf = (id: number | null) => state.users.find((u) => u.id === id)?.email
        const commenters = new Set((state.comments.get(t.id) ?? []).map((c) => emailOf(c.author_id)))
        return any("type", (v) => v === "ticket")
          && any("group", (v) => Number(v) === t.group_id)
          && any("status", (v) => v === t.status)
          && any("priority", (v) => v === t.priority)
          && any("assignee", (v) => v === emailOf(t.assignee_id))
          && any("requester", (v) => v === emailOf(t.requester_id))
          && any("commenter", (v) => commenters.has(v))
          && any("tags", (v) => t.tags.includes(v))
          && all("created>=", (v) => Date.parse(t.created_at) >= Date.parse(v))
          && all("created<", (v) => Date.parse(t.created_at) < Date.parse(v))
          && all("text", (v) => `${t.subject} ${t.description}`.toLowerCase().includes(v.toLowerCase()))
      }

      const page = <A>(res: ServerResponse, url: URL, key: string, items: Array<A>) => {
        const perPage = Math.min(Number(url.searchParams.get("per_page") ?? 100), 100)
        const pageNo = Number(url.searchParams.get("page") ?? 1)
        const slice = items.slice((pageNo - 1) * perPage, pageNo * perPage)
        const more = pageNo * perPage < items.length
        const next = new URL(url)
        next.searchParams.set("page", String(pageNo + 1))
        return send(res, 200, { [key]: slice, next_page: more ? next.toString() : null, previous_page: null, count: items.length })
      }

      const handle = async (req: IncomingMessage, res: ServerResponse) => {
        const url = new URL(req.url ?? "/", state.baseUrl)
        state.requests.push({ method: req.method ?? "GET", path: url.pathname, query: url.search })
        const chunks: Array<Buffer> = []
        for await (const chunk of req) chunks.push(chunk as Buffer)
        const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, Record<string, unknown>> : {}
        if (state.mode === "stalled") return
        if (req.headers.authorization !== `Basic ${Buffer.from(`${email}/token:${token}`).toString("base64")}`) {
          return send(res, 401, { error: "Couldn't authenticate you" })
        }
        if (state.mode === "forbidden") return send(res, 403, { error: "Forbidden", description: "You do not have access to this resource" })
        if (state.mode === "failing") return send(res, 503, { error: "ServiceUnavailable" }, { "retry-after": "7" })
        if (state.mode === "throttled") return send(res, 429, { error: "TooManyRequests" }, { "retry-after": "3" })
        const path = url.pathname
        const ticketPath = /^\/api\/v2\/tickets\/(\d+)(\.json|\/comments\.json|\/audits\.json)$/.exec(path)
        const ticket = ticketPath !== null ? state.tickets.get(Number(ticketPath[1])) : undefined
        if (ticketPath !== null && ticket === undefined) return send(res, 404, { error: "RecordNotFound", description: "Not found" })

        if (req.method === "GET" && path === "/api/v2/users/show_many.json") {
          const ids = (url.searchParams.get("ids") ?? "").split(",").map(Number)
          return send(res, 200, { users: state.users.filter((u) => ids.includes(u.id)) })
        }
        if (req.method === "GET" && path === "/api/v2/users/search.json") {
          const q = (url.searchParams.get("query") ?? "").replace(/^email:/, "")
          return send(res, 200, { users: state.users.filter((u) => u.email.toLowerCase() === q.toLowerCase()) })
        }
        if (req.method === "GET" && path === "/api/v2/groups.json") return page(res, url, "groups", state.groups)
        const groupPath = /^\/api\/v2\/groups\/(\d+)\.json$/.exec(path)
        if (req.method === "GET" && groupPath !== null) {
          const group = state.groups.find((g) => g.id === Number(groupPath[1]))
          return group === undefined ? send(res, 404, { error: "RecordNotFound", description: "Not found" }) : send(res, 200, { group })
        }
        if (req.method === "POST" && path === "/api/v2/groups.json") {
          const group = { id: nextId++, name: String(body.group?.name) }
          state.groups.push(group)
          return send(res, 201, { group })
        }
        if (req.method === "POST" && path === "/api/v2/tickets.json") {
          const key = req.headers["idempotency-key"]
          if (typeof key === "string" && idempotency.has(key)) {
            return send(res, 201, { ticket: state.tickets.get(idempotency.get(key)!) }, { "x-idempotency-lookup": "hit" })
          }
          const t = body.ticket ?? {}
          const comment = t.comment as { body?: string; public?: boolean } | undefined
          if (comment?.body === undefined || comment.body === "") return invalid(res, "description", "Description: cannot be blank")
          if (t.type !== undefined && !TYPES.includes(String(t.type))) return invalid(res, "type", `Type: ${String(t.type)} is not valid`)
          const requesterEmail = String((t.requester as { email?: string } | undefined)?.email ?? email)
          let requester = userByEmail(requesterEmail)
          if (requester === undefined) {
            requester = { id: nextId++, email: requesterEmail, name: requesterEmail, role: "end-user" }
            state.users.push(requester)
          }
          const id = nextId++
          const created: ZTicket = {
            id,
            subject: String(t.subject ?? ""),
            description: comment.body,
            status: "new",
            priority: (t.priority as string | undefined) ?? null,
            type: (t.type as string | undefined) ?? null,
            tags: ((t.tags as Array<string> | undefined) ?? []).map((tag) => tag.toLowerCase()),
            requester_id: requester.id,
            submitter_id: 1,
            assignee_id: (t.assignee_id as number | undefined) ?? null,
            group_id: (t.group_id as number | undefined) ?? null,
            external_id: (t.external_id as string | undefined) ?? null,
            created_at: now(),
            updated_at: ""
          }
          created.updated_at = created.created_at
          state.tickets.set(id, created)
          addComment(id, 1, comment.body, true)
          audit(id, 1, [
            ...(["subject", "status", "priority", "type", "group_id", "assignee_id"] as const).map((f) => ({
              type: "Create",
              field_name: f,
              value: created[f]
            })),
            { type: "Comment", body: comment.body, public: true }
          ])
          if (typeof key === "string") idempotency.set(key, id)
          return send(res, 201, { ticket: created })
        }
        if (ticket !== undefined && ticketPath![2] === ".json") {
          if (req.method === "GET") return send(res, 200, { ticket })
          if (req.method === "DELETE") {
            state.tickets.delete(ticket.id)
            return send(res, 204, null)
          }
          if (req.method === "PUT") {
            if (ticket.status === "closed") return invalid(res, "status", "Status: closed prevents ticket update")
            const { comment, ...changes } = (body.ticket ?? {}) as Partial<ZTicket> & { comment?: { body: string; public?: boolean; author_id?: number } }
            if (changes.type !== undefined && changes.type !== null && !TYPES.includes(changes.type)) return invalid(res, "type", "Type is not valid")
            if (changes.assignee_id !== undefined && changes.assignee_id !== null && !state.users.some((u) => u.id === changes.assignee_id)) {
              return invalid(res, "assignee", "Assignee is not valid")
            }
            update(
              ticket,
              1,
              changes,
              comment === undefined
                ? undefined
                : { body: comment.body, public: comment.public !== false, ...(comment.author_id !== undefined ? { author_id: comment.author_id } : {}) }
            )
            return send(res, 200, { ticket })
          }
        }
        if (ticket !== undefined && ticketPath![2] === "/comments.json") {
          const list = [...(state.comments.get(ticket.id) ?? [])]
          return page(res, url, "comments", url.searchParams.get("sort_order") === "desc" ? list.reverse() : list)
        }
        if (ticket !== undefined && ticketPath![2] === "/audits.json") return page(res, url, "audits", state.audits.get(ticket.id) ?? [])
        if (req.method === "GET" && path === "/api/v2/search.json") {
          const query = url.searchParams.get("query") ?? ""
          const sortBy = url.searchParams.get("sort_by") ?? "created_at"
          const direction = url.searchParams.get("sort_order") === "asc" ? 1 : -1
          const rank = (t: ZTicket) =>
            sortBy === "priority"
              ? PRIORITY_RANK[t.priority ?? "normal"]
              : sortBy === "status"
              ? STATUS_RANK[t.status]
              : Date.parse(sortBy === "updated_at" ? t.updated_at : t.created_at)
          const found = [...state.tickets.values()].filter((t) => matches(t, query)).sort((a, b) =>
            (rank(a) - rank(b)) * direction || (a.id - b.id) * direction
          )
          return page(res, url, "results", found.map((t) => ({ ...t, result_type: "ticket" })))
        }
        return send(res, 404, { error: "InvalidEndpoint", description: `Not found: ${req.method} ${path}` })
      }

      yield* Effect.acquireRelease(
        Effect.async<ReturnType<typeof createServer>>((resume) => {
          const server = createServer((req, res) => {
            handle(req, res).catch((error: unknown) => send(res, 500, { error: String(error) }))
          })
          server.listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) =>
          Effect.async<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      )
      return state
    })
  )
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (status === 204) {
    res.writeHead(204, headers).end()
    return
  }
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body))
}
