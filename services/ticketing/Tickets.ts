import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { isServicePrincipal } from "../../schemas/Authorization.js"
import { conflict, Forbidden, unprocessable } from "../../schemas/Errors.js"
import type { TenantId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import type { TicketCreate, TicketListParams, TicketPatch, TicketStatus } from "../../schemas/Ticketing.js"
import { People } from "../ports/People.js"
import { QueueAccess } from "./QueueAccess.js"
import { ticketPages } from "./TicketPages.js"
import { ZendeskDesk } from "./zendesk/ZendeskDesk.js"
import { ZENDESK_SORTABLE_BY } from "./zendesk/ZendeskMapping.js"

import { traced } from "../../platform/Traced.js"
import {
  type Actor,
  actorOf,
  commentRows,
  connected,
  cursorKey,
  cursorOf,
  eventRows,
  groupTag,
  offsetOf,
  PRIORITY_RANK,
  queueRows,
  RESERVED_PREFIX,
  sortRefused,
  STATUS_RANK,
  SYSTEM_ADMINS,
  ticketRows,
  ticketSelect,
  toTicket
} from "./TicketRows.js"
import type { QueueRow, TicketRow } from "./TicketRows.js"
/**
 * Tickets of a queue, on the built-in desk or its connected Zendesk: every rule of the document's
 * ticketing section (client_request_id, requester and assignee, reserved labels, request types,
 * the status table, closed tickets, moves), with the activity timeline written with each change.
 * Who reaches a queue is QueueAccess's; the queues themselves are Queues'.
 */
export class Tickets extends Effect.Service<Tickets>()("Tickets", {
  dependencies: [QueueAccess.Default, ZendeskDesk.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const people = yield* People
    const zendesk = yield* ZendeskDesk
    const { page } = ticketPages(sql)
    const { queueOf, ticketIn, requireGroupAdmin } = yield* QueueAccess

    const event = (ticketId: string, actor: Actor, e: { kind: string; field?: string; old?: string | null; new?: string | null }) =>
      sql`INSERT INTO ticket_events ${
        sql.insert({
          ticket_id: ticketId,
          kind: e.kind,
          field: e.field ?? null,
          old_value: e.old ?? null,
          new_value: e.new ?? null,
          actor: actor.name,
          actor_type: actor.type
        })
      }`

    /** Tags minus the queue's own; another tag in the reserved namespace is refused. */
    const labelsOf = (queue: QueueRow, tags: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const reserved = tags.filter((t) => t.toLowerCase().startsWith(RESERVED_PREFIX) && t !== groupTag(queue.label))
        if (reserved.length > 0) return yield* unprocessable("RESERVED_LABEL", `Labels starting with ${RESERVED_PREFIX} are reserved: ${reserved.join(", ")}`)
        return [...new Set(tags.filter((t) => t !== groupTag(queue.label)))]
      })

    const checkType = (queue: QueueRow, type: string | undefined) =>
      type !== undefined && queue.request_types.length > 0 && !queue.request_types.includes(type)
        ? Effect.fail(unprocessable("TYPE_NOT_ACCEPTED", `This queue accepts the types ${queue.request_types.join(", ")}`))
        : Effect.void

    const member = (principal: Principal, email: string) =>
      Effect.flatMap(
        people.memberByEmail(principal, email),
        Option.match({
          onNone: () => Effect.fail(unprocessable("ASSIGNEE_UNRESOLVABLE", `${email} is not a member of this workspace`)),
          onSome: (u) => Effect.succeed(u.email)
        })
      )

    /** A write to the ticket under its lock; a closed ticket takes none. */
    const write = <A, E>(principal: Principal, groupId: string, id: string, f: (queue: QueueRow, ticket: TicketRow, actor: Actor) => Effect.Effect<A, E>) =>
      Effect.gen(function*() {
        const queue = yield* queueOf(principal, groupId)
        return yield* sql.withTransaction(Effect.gen(function*() {
          const ticket = yield* ticketIn(queue, id, true)
          if (ticket.status === "CLOSED") return yield* conflict("TICKET_CLOSED", "The ticket is closed")
          return yield* f(queue, ticket, actorOf(principal))
        })).pipe(Effect.catchTag("SqlError", Effect.die))
      })

    const reread = (queue: QueueRow, id: string) => Effect.map(ticketIn(queue, id), toTicket)

    const updateBuiltin = (principal: Principal, groupId: string, id: string, body: typeof TicketPatch.Type) =>
      write(principal, groupId, id, (queue, t, actor) =>
        Effect.gen(function*() {
          const labels = body.tags !== undefined ? yield* labelsOf(queue, body.tags) : t.labels
          yield* checkType(queue, body.type)
          const changes: Array<[string, string | null, string | null]> = []
          if (body.title !== undefined && body.title !== t.title) changes.push(["title", t.title, body.title])
          if (body.description !== undefined && body.description !== t.description) changes.push(["description", t.description, body.description])
          if (body.priority !== undefined && body.priority !== t.priority) changes.push(["priority", t.priority, body.priority])
          if (body.type !== undefined && body.type !== t.type) changes.push(["type", t.type, body.type])
          if (body.tags !== undefined && labels.join(",") !== t.labels.join(",")) changes.push(["labels", t.labels.join(","), labels.join(",")])
          const priority = body.priority ?? t.priority
          yield* sql`UPDATE tickets SET title = ${body.title ?? t.title}, description = ${body.description ?? t.description},
            priority = ${priority}, priority_rank = ${PRIORITY_RANK[priority]}, type = ${body.type ?? t.type}, labels = ${[...labels]}::text[],
            updated_at = now() WHERE id = ${id}`
          for (const [field, old, next] of changes) yield* event(id, actor, { kind: "field_change", field, old, new: next })
          return yield* reread(queue, id)
        }))

    const create = (principal: Principal, groupId: string, body: typeof TicketCreate.Type, parentId: string | null = null, actor: Actor = actorOf(principal)) =>
      Effect.gen(function*() {
        const queue = yield* queueOf(principal, groupId)
        if (
          body.requester_email !== undefined && body.requester_email.toLowerCase() !== principal.email.toLowerCase()
          && !SYSTEM_ADMINS.includes(principal.role) && !isServicePrincipal(principal)
        ) {
          return yield* new Forbidden({ code: "REQUESTER_NOT_ALLOWED", message: "Only a System Admin or a service principal names another requester" })
        }
        const labels = yield* labelsOf(queue, body.tags)
        yield* checkType(queue, body.type)
        if (queue.backend === "external") {
          return yield* zendesk.raise(connected(queue), {
            key: body.client_request_id,
            title: body.title,
            description: body.description,
            priority: body.priority,
            type: body.type ?? null,
            labels,
            requesterEmail: (body.requester_email ?? principal.email).toLowerCase(),
            assigneeEmail: body.assignee_email ?? null,
            parentId,
            byAiEmployee: false
          })
        }
        const assignee = body.assignee_email !== undefined ? yield* member(principal, body.assignee_email) : null
        const id = randomUUID()
        const inserted = yield* sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql`INSERT INTO tickets ${
            sql.insert({
              id,
              tenant_id: principal.tenantId,
              queue_id: queue.id,
              title: body.title,
              description: body.description,
              priority: body.priority,
              priority_rank: PRIORITY_RANK[body.priority],
              type: body.type ?? null,
              labels,
              requester_email: (body.requester_email ?? principal.email).toLowerCase(),
              assignee_email: assignee,
              parent_ticket_id: parentId,
              client_request_id: body.client_request_id ?? null,
              created_by: principal.userId
            })
          } ON CONFLICT (queue_id, client_request_id) WHERE client_request_id IS NOT NULL AND deleted_at IS NULL DO NOTHING RETURNING id`
          if (rows.length > 0) yield* event(id, actor, { kind: "create" })
          return rows.length > 0
        })).pipe(Effect.orDie)
        if (inserted) return yield* reread(queue, id)
        // A retry of a client_request_id answers the ticket the first request made in this queue
        // (which the caller can read: it reached the queue).
        const [earlier] = yield* sql`${sql.unsafe(ticketSelect)} WHERE t.queue_id = ${queue.id} AND t.client_request_id = ${body.client_request_id!}
          AND t.deleted_at IS NULL`.pipe(ticketRows, Effect.orDie)
        return toTicket(earlier)
      })

    const list = (principal: Principal, groupId: string, p: typeof TicketListParams.Type) =>
      Effect.gen(function*() {
        const queue = yield* queueOf(principal, groupId)
        if (queue.backend === "builtin") return yield* page([sql`t.queue_id = ${queue.id}`], p, groupId, true)
        if (p.sort !== undefined && !(ZENDESK_SORTABLE_BY as ReadonlyArray<string>).includes(p.sort)) return yield* sortRefused(ZENDESK_SORTABLE_BY)
        const key = cursorKey(groupId, { ...p })
        const offset = yield* offsetOf(key, p.cursor)
        const size = Math.min(p.page_size ?? 25, 100)
        const found = yield* zendesk.list(connected(queue), p, offset, size)
        return { items: found.items, next_cursor: found.more ? cursorOf(key, offset + size) : null, sortable_by: [...ZENDESK_SORTABLE_BY] }
      })

    /** A ticket an AI Employee raises (live_agent_transfer): idempotent by its key, the run's starter as requester. */
    const raiseFor = (r: { tenantId: string; groupId: string; key: string; title: string; description: string; requesterId: string | null }) =>
      Effect.gen(function*() {
        const [queue] = yield* sql`SELECT * FROM ticket_queues WHERE tenant_id = ${r.tenantId} AND group_id = ${r.groupId}`.pipe(queueRows, Effect.orDie)
        if (queue === undefined) return yield* Effect.fail({ message: "the group has no ticket queue" })
        const requester = r.requesterId === null ? Option.none() : yield* people.memberInTenant(r.tenantId as TenantId, r.requesterId)
        const requesterEmail = Option.match(requester, { onNone: () => "ai-employee@platform.local", onSome: (u) => u.email.toLowerCase() })
        if (queue.backend === "external") {
          const raised = yield* zendesk.raise(connected(queue), {
            key: r.key,
            title: r.title,
            description: r.description,
            priority: "MEDIUM",
            type: null,
            labels: [],
            requesterEmail,
            assigneeEmail: null,
            parentId: null,
            byAiEmployee: true
          }).pipe(Effect.mapError((e) => ({ message: e.message })))
          return { id: raised.id, number: raised.number, groupTag: raised.group_tag }
        }
        const id = randomUUID()
        yield* sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql`INSERT INTO tickets ${
            sql.insert({
              id,
              tenant_id: r.tenantId,
              queue_id: queue.id,
              title: r.title,
              description: r.description,
              priority: "MEDIUM",
              priority_rank: 2,
              requester_email: requesterEmail,
              client_request_id: r.key,
              created_by: r.requesterId
            })
          } ON CONFLICT (queue_id, client_request_id) WHERE client_request_id IS NOT NULL AND deleted_at IS NULL DO NOTHING RETURNING id`
          if (rows.length > 0) yield* event(id, { name: "AI Employee", type: "ai_employee" }, { kind: "create" })
        })).pipe(Effect.orDie)
        const [ticket] = yield* sql`${sql.unsafe(ticketSelect)} WHERE t.queue_id = ${queue.id} AND t.client_request_id = ${r.key}
          AND t.deleted_at IS NULL`.pipe(ticketRows, Effect.orDie)
        return { id: ticket.id, number: ticket.number, groupTag: groupTag(ticket.label) }
      })

    return traced("Tickets", {
      raiseFor,
      create,
      list,
      get: (principal: Principal, groupId: string, id: string) =>
        Effect.flatMap(queueOf(principal, groupId), (q) => q.backend === "external" ? zendesk.get(connected(q), id) : reread(q, id)),
      update: (principal: Principal, groupId: string, id: string, body: typeof TicketPatch.Type) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "builtin") return yield* updateBuiltin(principal, groupId, id, body)
          const labels = body.tags !== undefined ? yield* labelsOf(queue, body.tags) : undefined
          yield* checkType(queue, body.type)
          return yield* zendesk.update(connected(queue), id, {
            title: body.title,
            description: body.description,
            priority: body.priority,
            type: body.type,
            labels
          })
        }),
      status: (principal: Principal, groupId: string, id: string, status: typeof TicketStatus.Type) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (status === "CLOSED") {
            return yield* unprocessable("STATUS_NOT_ALLOWED", "Close a ticket with POST .../close", [{ path: ["status"], message: "CLOSED is set by close" }])
          }
          if (queue.backend === "external") return yield* zendesk.status(connected(queue), id, status)
          return yield* write(principal, groupId, id, (queue, t, actor) =>
            Effect.gen(function*() {
              if (t.status !== status) {
                yield* sql`UPDATE tickets SET status = ${status}, status_rank = ${STATUS_RANK[status]}, updated_at = now() WHERE id = ${id}`
                yield* event(id, actor, { kind: "field_change", field: "status", old: t.status, new: status })
              }
              return yield* reread(queue, id)
            }))
        }),
      close: (principal: Principal, groupId: string, id: string, resolution: string | undefined) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "external") return yield* zendesk.close(connected(queue), id, resolution)
          return yield* write(principal, groupId, id, (queue, t, actor) =>
            Effect.gen(function*() {
              yield* sql`UPDATE tickets SET status = 'CLOSED', status_rank = 3, resolution = ${
                resolution ?? null
              }, closed_at = now(), updated_at = now() WHERE id = ${id}`
              yield* event(id, actor, { kind: "field_change", field: "status", old: t.status, new: "CLOSED" })
              return yield* reread(queue, id)
            }))
        }),
      assign: (principal: Principal, groupId: string, id: string, email: string | null) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "external") return yield* zendesk.assign(connected(queue), id, email)
          const assignee = email === null ? null : yield* member(principal, email)
          return yield* write(principal, groupId, id, (queue, t, actor) =>
            Effect.gen(function*() {
              yield* sql`UPDATE tickets SET assignee_email = ${assignee}, updated_at = now() WHERE id = ${id}`
              if (assignee !== t.assignee_email) yield* event(id, actor, { kind: "field_change", field: "assignee", old: t.assignee_email, new: assignee })
              return yield* reread(queue, id)
            }))
        }),
      move: (principal: Principal, groupId: string, id: string, targetGroupId: string) =>
        Effect.gen(function*() {
          const source = yield* queueOf(principal, groupId)
          const target = yield* queueOf(principal, targetGroupId)
          if (target.connection_id !== source.connection_id || target.backend !== source.backend) {
            return yield* unprocessable("CONNECTION_REQUIRED", "A ticket moves only between queues on the same connection")
          }
          if (source.backend === "external") return yield* zendesk.move(connected(source), connected(target), id)
          return yield* write(principal, groupId, id, (queue, t, actor) =>
            Effect.gen(function*() {
              yield* sql`UPDATE tickets SET queue_id = ${target.id}, assignee_email = NULL, updated_at = now() WHERE id = ${id}`
              yield* event(id, actor, { kind: "field_change", field: "queue", old: groupTag(queue.label), new: groupTag(target.label) })
              if (t.assignee_email !== null) yield* event(id, actor, { kind: "field_change", field: "assignee", old: t.assignee_email, new: null })
              return yield* reread(target, id)
            }))
        }),
      remove: (principal: Principal, groupId: string, id: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          yield* requireGroupAdmin(principal, groupId, "Deleting tickets")
          if (queue.backend === "external") return yield* zendesk.remove(connected(queue), id)
          yield* ticketIn(queue, id)
          yield* sql`UPDATE tickets SET deleted_at = now() WHERE id = ${id}`.pipe(Effect.orDie)
        }),
      subticket: (principal: Principal, groupId: string, id: string, body: typeof TicketCreate.Type) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          const parent = queue.backend === "external" ? yield* zendesk.get(connected(queue), id) : yield* ticketIn(queue, id)
          if (parent.status === "CLOSED") return yield* conflict("TICKET_CLOSED", "The ticket is closed")
          return yield* create(principal, groupId, body, parent.id)
        }),
      children: (principal: Principal, groupId: string, id: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "external") return { items: yield* zendesk.children(connected(queue), id), next_cursor: null }
          yield* ticketIn(queue, id)
          const rows = yield* sql`${sql.unsafe(ticketSelect)} WHERE t.parent_ticket_id = ${id} AND t.deleted_at IS NULL ORDER BY t.number`.pipe(
            ticketRows,
            Effect.orDie
          )
          return { items: rows.map(toTicket), next_cursor: null }
        }),
      comment: (principal: Principal, groupId: string, id: string, body: { body: string; visibility: "public" | "internal" }) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "external") return yield* zendesk.comment(connected(queue), id, principal.email, body.body, body.visibility)
          return yield* write(principal, groupId, id, (_queue, _t, actor) =>
            Effect.gen(function*() {
              const [row] = yield* sql`INSERT INTO ticket_comments ${
                sql.insert({ id: randomUUID(), ticket_id: id, author_email: principal.email, body: body.body, visibility: body.visibility })
              }
                RETURNING id, body, visibility, author_email, created_at`.pipe(commentRows)
              yield* event(id, actor, { kind: body.visibility === "public" ? "comment" : "work_note", new: body.body.slice(0, 500) })
              yield* sql`UPDATE tickets SET updated_at = now() WHERE id = ${id}`
              return row
            }))
        }),
      comments: (principal: Principal, groupId: string, id: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "external") return { items: yield* zendesk.comments(connected(queue), id) }
          yield* ticketIn(queue, id)
          return {
            items: yield* sql`SELECT id, body, visibility, author_email, created_at FROM ticket_comments WHERE ticket_id = ${id} ORDER BY created_at, id`.pipe(
              commentRows,
              Effect.orDie
            )
          }
        }),
      events: (principal: Principal, groupId: string, id: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "external") return { items: yield* zendesk.events(connected(queue), id) }
          yield* ticketIn(queue, id)
          return {
            items: yield* sql`SELECT kind, field, old_value, new_value, actor, actor_type, created_at FROM ticket_events WHERE ticket_id = ${id} ORDER BY id`
              .pipe(eventRows, Effect.orDie)
          }
        })
    })
  })
}) {}
