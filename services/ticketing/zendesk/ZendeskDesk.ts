import { SqlClient } from "@effect/sql"
import { Effect, Either, Schema } from "effect"
import { createHash } from "node:crypto"
import type { Dispatcher } from "undici"
import { AppConfig } from "../../../platform/Config.js"
import { OutboundGuard } from "../../../platform/outbound/OutboundGuard.js"
import { decodeRows } from "../../../platform/Rows.js"
import { traced } from "../../../platform/Traced.js"
import { conflict, FailedDependency, notFound, unprocessable } from "../../../schemas/Errors.js"
import type { Priorities, TicketListParams, TicketStatus } from "../../../schemas/Ticketing.js"
import { TicketingConnections } from "../../ports/TicketingConnections.js"
import { callZendesk, credentialsOf, type ZendeskCredentials, type ZendeskFailure } from "./ZendeskApi.js"
import {
  AI_EMPLOYEE_TAG,
  audienceOf,
  isClosed,
  PARENT_TAG,
  priorityOut,
  searchQuery,
  searchSort,
  statusOut,
  tagsWith,
  ticketOf,
  timelineOf,
  type ZTicket as ZTicketType
} from "./ZendeskMapping.js"
import type { ConnectedQueue, NewTicket } from "./ZendeskShapes.js"
import * as Z from "./ZendeskShapes.js"

export type { ConnectedQueue, NewTicket }

/**
 * The connector of a connected queue (00-decisions section 10): Zendesk Support API v2 through the
 * queue's connection. Tickets, comments and audits are read live from Zendesk (no copy is kept);
 * the only rows written here are the idempotency records of client_request_id.
 */
const externalIdRows = decodeRows("ticket_external_requests", Schema.Struct({ external_id: Schema.String }))
const tagRows = decodeRows("ticket_queues", Schema.Struct({ external_group_id: Schema.String, label: Schema.String }))
export class ZendeskDesk extends Effect.Service<ZendeskDesk>()("ZendeskDesk", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const connections = yield* TicketingConnections
    const guard = yield* OutboundGuard
    const timeoutMs = (yield* AppConfig).ticketingTimeoutSeconds * 1000

    interface Session {
      readonly creds: ZendeskCredentials
      readonly call: (c: Parameters<typeof callZendesk>[3]) => Effect.Effect<unknown, ZendeskFailure>
    }

    const open = (tenantId: string, connectionId: string | null): Effect.Effect<Session, FailedDependency> =>
      Effect.gen(function*() {
        const found = connectionId === null ? { _tag: "Missing" as const } : yield* connections.lookup(tenantId, connectionId)
        if (found._tag === "Missing") {
          return yield* new FailedDependency({ code: "CONNECTION_UNAVAILABLE", message: "The queue's connection was deleted or disconnected" })
        }
        if (found._tag === "NotTicketing") {
          return yield* new FailedDependency({
            code: "CONNECTION_UNAVAILABLE",
            message: `The queue's connection is an integration of category ${found.category}, not ticketing`
          })
        }
        const creds = yield* Either.match(credentialsOf(found.credentials), { onLeft: Effect.fail, onRight: Effect.succeed })
        const dispatcher: Dispatcher = guard.dispatcher
        return {
          creds,
          call: (c) => Effect.map(callZendesk(creds, dispatcher, timeoutMs, c), (r) => r.body)
        }
      })

    const session = (queue: ConnectedQueue) => open(queue.tenant_id, queue.connection_id)

    const emailsOf = (s: Session, ids: ReadonlyArray<number | null>) =>
      Effect.gen(function*() {
        const wanted = [...new Set(ids.filter((id): id is number => id !== null && id > 0))]
        const emails = new Map<number, string>()
        for (let i = 0; i < wanted.length; i += 100) {
          const body = yield* s.call({ method: "GET", path: "/api/v2/users/show_many.json", query: { ids: wanted.slice(i, i + 100).join(",") } })
          for (const u of (yield* Z.decode(Z.UsersEnvelope)(body)).users) if (u.email !== null) emails.set(u.id, u.email.toLowerCase())
        }
        return emails
      })

    /** The Zendesk user with this email. */
    const userOf = (s: Session, email: string) =>
      Effect.gen(function*() {
        const body = yield* s.call({ method: "GET", path: "/api/v2/users/search.json", query: { query: `email:${email}` } })
        return (yield* Z.decode(Z.UsersEnvelope)(body)).users.find((u) => u.email?.toLowerCase() === email.toLowerCase())
      })

    /** Rule 3 on a connected queue: the assignee is a user of the instance who can take tickets (an agent or admin). */
    const assigneeIdOf = (s: Session, email: string) =>
      Effect.flatMap(userOf(s, email), (user) =>
        user === undefined || user.role === "end-user"
          ? Effect.fail(unprocessable("ASSIGNEE_UNRESOLVABLE", `${email} is not an agent of the queue's Zendesk instance`))
          : Effect.succeed(user.id))

    const shown = (s: Session, queue: ConnectedQueue, tickets: ReadonlyArray<ZTicketType>) =>
      Effect.map(emailsOf(s, tickets.flatMap((t) => [t.requester_id, t.assignee_id])), (emails) => tickets.map((t) => ticketOf(t, queue, emails)))

    /** The ticket, if the queue's Zendesk group holds it (a ticket of another group is not found here). */
    const fetch = (s: Session, queue: ConnectedQueue, id: string) =>
      Effect.gen(function*() {
        const zid = yield* Z.zendeskId(id)
        const body = yield* s.call({ method: "GET", path: `/api/v2/tickets/${zid}.json` })
        const { ticket } = yield* Z.decode(Z.TicketEnvelope)(body)
        return ticket.group_id === queue.external_group_id ? ticket : yield* Effect.fail(notFound("Ticket"))
      })

    const update = (s: Session, queue: ConnectedQueue, id: number, ticket: Record<string, unknown>) =>
      Effect.flatMap(s.call({ method: "PUT", path: `/api/v2/tickets/${id}.json`, body: { ticket } }), Z.decode(Z.TicketEnvelope)).pipe(
        Effect.flatMap(({ ticket: t }) => shown(s, queue, [t])),
        Effect.map((list) => list[0])
      )

    /** A write to a ticket that is not solved or closed (those take none: 409). */
    const writable = (queue: ConnectedQueue, id: string) =>
      Effect.gen(function*() {
        const s = yield* session(queue)
        const ticket = yield* fetch(s, queue, id)
        if (isClosed(ticket)) return yield* conflict("TICKET_CLOSED", "The ticket is closed")
        return { s, ticket }
      })

    /**
     * One Zendesk ticket per client_request_id: the request holds a transaction-scoped advisory lock
     * on the key while it creates, so parallel duplicates wait and then find the record. Zendesk's
     * own Idempotency-Key covers a process that died between Zendesk's answer and the record.
     */
    const raise = (queue: ConnectedQueue, t: NewTicket) =>
      Effect.gen(function*() {
        const s = yield* session(queue)
        const assigneeId = t.assigneeEmail !== null ? yield* assigneeIdOf(s, t.assigneeEmail) : null
        const post = Effect.flatMap(
          s.call({
            method: "POST",
            path: "/api/v2/tickets.json",
            headers: t.key !== undefined ? { "idempotency-key": createHash("sha256").update(`${queue.tenant_id}:${queue.id}:${t.key}`).digest("hex") } : {},
            body: {
              ticket: {
                subject: t.title,
                comment: { body: t.description === "" ? t.title : t.description, public: true },
                priority: priorityOut[t.priority],
                ...(t.type !== null ? { type: t.type } : {}),
                tags: [...t.labels, ...(t.parentId !== null ? [`${PARENT_TAG}${t.parentId}`] : []), ...(t.byAiEmployee ? [AI_EMPLOYEE_TAG] : [])],
                group_id: queue.external_group_id,
                requester: { email: t.requesterEmail },
                ...(assigneeId !== null ? { assignee_id: assigneeId } : {}),
                ...(t.key !== undefined ? { external_id: t.key } : {})
              }
            }
          }),
          Z.decode(Z.TicketEnvelope)
        )
        if (t.key === undefined) return (yield* shown(s, queue, [(yield* post).ticket]))[0]
        const key = t.key
        const recorded = sql`SELECT external_id::text AS external_id FROM ticket_external_requests
          WHERE queue_id = ${queue.id} AND client_request_id = ${key}`.pipe(externalIdRows, Effect.orDie, Effect.map((rows) => rows[0]?.external_id))
        const made = (yield* recorded) ?? (yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`ticket:${queue.id}:${key}`}, 0))`
          const again = yield* recorded
          if (again !== undefined) return again
          const { ticket } = yield* post
          yield* sql`INSERT INTO ticket_external_requests ${
            sql.insert({ tenant_id: queue.tenant_id, queue_id: queue.id, client_request_id: key, connection_id: queue.connection_id, external_id: ticket.id })
          }`
          return String(ticket.id)
        })).pipe(Effect.catchTag("SqlError", Effect.die)))
        const ticket = yield* Effect.flatMap(s.call({ method: "GET", path: `/api/v2/tickets/${made}.json` }), Z.decode(Z.TicketEnvelope))
        return (yield* shown(s, queue, [ticket.ticket]))[0]
      })

    /** Every item of a paged Zendesk listing (pages of 100, at most Z.MAX_PAGES of them). */
    const everyPage = <A extends { readonly next_page: string | null }, I, B>(
      s: Session,
      path: string,
      envelope: Schema.Schema<A, I>,
      items: (page: A) => ReadonlyArray<B>
    ) =>
      Effect.gen(function*() {
        const all: Array<B> = []
        let more = true
        for (let page = 1; page <= Z.MAX_PAGES && more; page++) {
          const query = { page: String(page), per_page: "100", sort_order: "asc" }
          const found = yield* Effect.flatMap(s.call({ method: "GET", path, query }), Z.decode(envelope))
          all.push(...items(found))
          more = found.next_page !== null
        }
        return all
      })

    /** Up to `limit` results of a search from `offset`, reading Zendesk's pages of 100 (at most Z.MAX_PAGES). */
    const search = (s: Session, query: string, sort: { sort_by: string; sort_order: string }, offset: number, limit: number) =>
      Effect.gen(function*() {
        const perPage = 100
        const results: Array<ZTicketType> = []
        let page = Math.floor(offset / perPage) + 1
        let skip = offset % perPage
        let more = true
        for (let read = 0; read < Z.MAX_PAGES && more && results.length < limit; read++, page++) {
          const body = yield* s.call({ method: "GET", path: "/api/v2/search.json", query: { query, ...sort, page: String(page), per_page: String(perPage) } })
          const found = yield* Z.decode(Z.SearchEnvelope)(body)
          results.push(...found.results.filter((r) => r.result_type === undefined || r.result_type === "ticket").slice(skip))
          skip = 0
          more = found.next_page !== null
        }
        return { tickets: results.slice(0, limit), more: more || results.length > limit }
      })

    return traced("ZendeskDesk", {
      /**
       * The Zendesk group a new queue stands for: the one named, else the group called like the
       * queue, created when there is none. The connection must resolve now (422 otherwise).
       */
      groupFor: (tenantId: string, connectionId: string, name: string, externalGroupId: number | undefined) =>
        Effect.gen(function*() {
          const s = yield* open(tenantId, connectionId).pipe(
            Effect.mapError((e) => unprocessable("CONNECTION_NOT_FOUND", e.message))
          )
          if (externalGroupId !== undefined) {
            const body = yield* s.call({ method: "GET", path: `/api/v2/groups/${externalGroupId}.json` }).pipe(
              Effect.catchTag("NotFound", () => Effect.fail(unprocessable("CONNECTION_NOT_FOUND", `Zendesk has no group ${externalGroupId}`)))
            )
            return (yield* Z.decode(Z.GroupEnvelope)(body)).group.id
          }
          const groups = yield* everyPage(s, "/api/v2/groups.json", Z.GroupsEnvelope, (p) => p.groups)
          const match = groups.find((g) => g.name.toLowerCase() === name.toLowerCase())
          if (match !== undefined) return match.id
          const created = yield* Effect.flatMap(s.call({ method: "POST", path: "/api/v2/groups.json", body: { group: { name } } }), Z.decode(Z.GroupEnvelope))
          return created.group.id
        }),

      raise,

      get: (queue: ConnectedQueue, id: string) =>
        Effect.gen(function*() {
          const s = yield* session(queue)
          return (yield* shown(s, queue, [yield* fetch(s, queue, id)]))[0]
        }),

      /** A page of the queue, `size` results from `offset`, Zendesk's search sorted as asked. */
      list: (queue: ConnectedQueue, p: typeof TicketListParams.Type, offset: number, size: number) =>
        Effect.gen(function*() {
          const s = yield* session(queue)
          const found = yield* search(s, searchQuery([queue.external_group_id ?? 0], p), searchSort(p), offset, size)
          return { items: yield* shown(s, queue, found.tickets), more: found.more }
        }),

      /** The first `limit` tickets, newest first, of the caller's scope over these queues of one connection. */
      mine: (
        queues: ReadonlyArray<ConnectedQueue>,
        p: typeof TicketListParams.Type,
        scope: "created" | "assigned" | "commented",
        email: string,
        limit: number
      ) =>
        Effect.gen(function*() {
          const s = yield* session(queues[0])
          const term = scope === "created" ? `requester:${email}` : scope === "assigned" ? `assignee:${email}` : `commenter:${email}`
          const byGroup = new Map(queues.map((q) => [q.external_group_id, q]))
          const found = yield* search(s, searchQuery(queues.map((q) => q.external_group_id ?? 0), { ...p, sort: undefined }, [term]), searchSort({}), 0, limit)
          const emails = yield* emailsOf(s, found.tickets.flatMap((t) => [t.requester_id, t.assignee_id]))
          return found.tickets.flatMap((t) => {
            const queue = byGroup.get(t.group_id)
            return queue === undefined ? [] : [ticketOf(t, queue, emails)]
          })
        }),

      update: (
        queue: ConnectedQueue,
        id: string,
        patch: {
          title?: string | undefined
          description?: string | undefined
          priority?: typeof Priorities[number] | undefined
          type?: string | undefined
          labels?: ReadonlyArray<string> | undefined
        }
      ) =>
        Effect.gen(function*() {
          const { s, ticket } = yield* writable(queue, id)
          if (patch.description !== undefined && patch.description !== (ticket.description ?? "")) {
            return yield* unprocessable("FIELD_NOT_SUPPORTED", "A Zendesk ticket's description is its first comment and cannot change; add a comment instead", [
              { path: ["description"], message: "not served by Zendesk" }
            ])
          }
          return yield* update(s, queue, ticket.id, {
            ...(patch.title !== undefined ? { subject: patch.title } : {}),
            ...(patch.priority !== undefined ? { priority: priorityOut[patch.priority] } : {}),
            ...(patch.type !== undefined ? { type: patch.type } : {}),
            ...(patch.labels !== undefined ? { tags: tagsWith(patch.labels, ticket.tags) } : {})
          })
        }),

      status: (queue: ConnectedQueue, id: string, status: Exclude<typeof TicketStatus.Type, "CLOSED">) =>
        Effect.flatMap(writable(queue, id), ({ s, ticket }) => update(s, queue, ticket.id, { status: statusOut[status] })),

      /** Solved in Zendesk; the resolution becomes an internal note (Zendesk has no resolution field). */
      close: (queue: ConnectedQueue, id: string, resolution: string | undefined) =>
        Effect.flatMap(
          writable(queue, id),
          ({ s, ticket }) =>
            Effect.map(
              update(s, queue, ticket.id, {
                status: "solved",
                ...(resolution !== undefined ? { comment: { body: `Resolution: ${resolution}`, public: false } } : {})
              }),
              (t) => ({
                ...t,
                resolution: resolution ?? null
              })
            )
        ),

      assign: (queue: ConnectedQueue, id: string, email: string | null) =>
        Effect.gen(function*() {
          const { s, ticket } = yield* writable(queue, id)
          const assigneeId = email === null ? null : yield* assigneeIdOf(s, email)
          return yield* update(s, queue, ticket.id, { assignee_id: assigneeId })
        }),

      move: (queue: ConnectedQueue, target: ConnectedQueue, id: string) =>
        Effect.flatMap(writable(queue, id), ({ s, ticket }) => update(s, target, ticket.id, { group_id: target.external_group_id, assignee_id: null })),

      remove: (queue: ConnectedQueue, id: string) =>
        Effect.gen(function*() {
          const s = yield* session(queue)
          const ticket = yield* fetch(s, queue, id)
          yield* s.call({ method: "DELETE", path: `/api/v2/tickets/${ticket.id}.json` })
        }),

      children: (queue: ConnectedQueue, id: string) =>
        Effect.gen(function*() {
          const s = yield* session(queue)
          const parent = yield* fetch(s, queue, id)
          const found = yield* search(s, `type:ticket tags:${PARENT_TAG}${parent.id}`, { sort_by: "created_at", sort_order: "asc" }, 0, 1000)
          return yield* shown(s, queue, found.tickets)
        }),

      /** A comment authored by the caller when Zendesk knows them, else by the connection's user. */
      comment: (queue: ConnectedQueue, id: string, authorEmail: string, body: string, visibility: "public" | "internal") =>
        Effect.gen(function*() {
          const { s, ticket } = yield* writable(queue, id)
          const authorId = (yield* userOf(s, authorEmail))?.id
          yield* s.call({
            method: "PUT",
            path: `/api/v2/tickets/${ticket.id}.json`,
            body: { ticket: { comment: { body, public: visibility === "public", ...(authorId !== undefined ? { author_id: authorId } : {}) } } }
          })
          const comments = yield* Effect.flatMap(
            s.call({ method: "GET", path: `/api/v2/tickets/${ticket.id}/comments.json`, query: { sort_order: "desc", per_page: "1" } }),
            Z.decode(Z.CommentsEnvelope)
          )
          const latest = comments.comments[0]
          const emails = yield* emailsOf(s, latest !== undefined ? [latest.author_id] : [])
          return {
            id: String(latest?.id ?? ""),
            body,
            visibility,
            author_email: (latest !== undefined ? emails.get(latest.author_id) : undefined) ?? authorEmail,
            created_at: latest !== undefined ? new Date(latest.created_at) : new Date()
          }
        }),

      comments: (queue: ConnectedQueue, id: string) =>
        Effect.gen(function*() {
          const s = yield* session(queue)
          const ticket = yield* fetch(s, queue, id)
          const all = yield* everyPage(s, `/api/v2/tickets/${ticket.id}/comments.json`, Z.CommentsEnvelope, (p) => p.comments)
          const emails = yield* emailsOf(s, all.map((c) => c.author_id))
          return all.map((c) => ({
            id: String(c.id),
            body: c.body,
            visibility: c.public ? "public" as const : "internal" as const,
            author_email: emails.get(c.author_id) ?? String(c.author_id),
            created_at: new Date(c.created_at)
          }))
        }),

      events: (queue: ConnectedQueue, id: string) =>
        Effect.gen(function*() {
          const s = yield* session(queue)
          const ticket = yield* fetch(s, queue, id)
          const audits = yield* everyPage(s, `/api/v2/tickets/${ticket.id}/audits.json`, Z.AuditsEnvelope, (p) => p.audits)
          const emails = yield* emailsOf(s, audienceOf(audits))
          const serviceUserId = [...emails].find(([, e]) => e === s.creds.email.toLowerCase())?.[0]
          const tags = yield* sql`SELECT external_group_id::text AS external_group_id, label FROM ticket_queues
            WHERE tenant_id = ${queue.tenant_id} AND connection_id = ${queue.connection_id} AND external_group_id IS NOT NULL`.pipe(tagRows, Effect.orDie)
          return timelineOf(audits, {
            emails,
            serviceUserId,
            groupTags: new Map(tags.map((t) => [Number(t.external_group_id), `queue:${t.label}`])),
            raisedByAiEmployee: ticket.tags.includes(AI_EMPLOYEE_TAG)
          })
        })
    })
  })
}) {}
