import { randomUUID } from "node:crypto"
import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Option } from "effect"
import { GROUP_ADMINS, isServicePrincipal, requireReader } from "../../schemas/Authorization.js"
import { conflict, Forbidden, NotFound, notFound, unprocessable } from "../../schemas/Errors.js"
import type { TenantId } from "../../schemas/Ids.js"
import type { Principal } from "../../schemas/Principal.js"
import type { MyTicketParams, TicketStatus, QueueCreate, TicketCreate, TicketListParams, TicketPatch } from "../../schemas/Ticketing.js"
import { People } from "../ports/People.js"
import { ticketPages } from "./TicketPages.js"
import { ZendeskDesk } from "./zendesk/ZendeskDesk.js"
import { ZENDESK_SORTABLE_BY, ZENDESK_TYPES } from "./zendesk/ZendeskMapping.js"

import {
  PRIORITY_RANK,
  RESERVED_PREFIX,
  STATUS_RANK,
  SYSTEM_ADMINS,
  actorOf,
  commentRows,
  connected,
  cursorKey,
  cursorOf,
  eventRows,
  groupTag,
  isUuid,
  offsetOf,
  queueRows,
  sortRefused,
  ticketRows,
  ticketSelect,
  toQueue,
  toTicket,
  type Actor
} from "./TicketRows.js"
import type { QueueRow, TicketRow } from "./TicketRows.js"
/**
 * Queues on user groups and the built-in desk's tickets: every rule of the document's ticketing
 * section (enablement, effective group membership, client_request_id, requester and assignee,
 * reserved labels, request types, the status table, closed tickets, moves), with the activity
 * timeline written with each change.
 */
export class Tickets extends Effect.Service<Tickets>()("Tickets", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const people = yield* People
    const zendesk = yield* ZendeskDesk
    const { page, rows } = ticketPages(sql)

    /** Every route: 404 while ticketing is off (for every role), then 403 for no_access. */
    const enabled = (principal: Principal) =>
      principal.settings.ticketing_enabled
        ? requireReader(principal)
        : Effect.fail(new NotFound({ code: "TICKETING_DISABLED", message: "Ticketing is not enabled for this workspace" }))

    /** Ticketing on, groups on, the group resolvable, and the caller in it (System Admins always). */
    const access = (principal: Principal, groupId: string) =>
      Effect.gen(function*() {
        yield* enabled(principal)
        if (!principal.settings.user_groups_enabled) return yield* new Forbidden({ code: "GROUP_UNRESOLVABLE", message: "User groups are not enabled for this workspace" })
        const exists = yield* people.existingGroups(principal.tenantId as TenantId, [groupId])
        if (!exists.has(groupId)) return yield* new Forbidden({ code: "GROUP_UNRESOLVABLE", message: "The group cannot be resolved in this workspace" })
        if (SYSTEM_ADMINS.includes(principal.role)) return
        if (!(yield* people.groupsOf(principal)).includes(groupId)) {
          return yield* new Forbidden({ code: "NOT_A_QUEUE_MEMBER", message: "You are not a member of this queue's group" })
        }
      })

    /** Group admins of the group (the membership flag), group-administering roles and System Admins. */
    const requireGroupAdmin = (principal: Principal, groupId: string, what: string) =>
      Effect.gen(function*() {
        if (GROUP_ADMINS.includes(principal.role) || SYSTEM_ADMINS.includes(principal.role)) return
        if (!(yield* people.administersGroup(principal, groupId))) {
          return yield* new Forbidden({ code: "FORBIDDEN", message: `${what} needs a group admin of this group or a System Admin` })
        }
      })

    const queueOf = (principal: Principal, groupId: string) =>
      Effect.gen(function*() {
        yield* access(principal, groupId)
        const [q] = yield* sql`SELECT * FROM ticket_queues WHERE tenant_id = ${principal.tenantId} AND group_id = ${groupId}`.pipe(queueRows, Effect.orDie)
        return q === undefined ? yield* new NotFound({ code: "NO_QUEUE", message: "This group has no ticket queue" }) : q
      })

    const ticketIn = (queue: QueueRow, id: string, lock = false) =>
      !isUuid(id) ? Effect.fail(notFound("Ticket")) : sql`${sql.unsafe(ticketSelect)} WHERE t.queue_id = ${queue.id} AND t.id = ${id} AND t.deleted_at IS NULL ${lock ? sql`FOR UPDATE OF t` : sql``}`.pipe(
        ticketRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Ticket")) : Effect.succeed(rows[0]))
      )

    const event = (ticketId: string, actor: Actor, e: { kind: string; field?: string; old?: string | null; new?: string | null }) =>
      sql`INSERT INTO ticket_events ${sql.insert({ ticket_id: ticketId, kind: e.kind, field: e.field ?? null, old_value: e.old ?? null, new_value: e.new ?? null, actor: actor.name, actor_type: actor.type })}`

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
      Effect.flatMap(people.memberByEmail(principal, email), Option.match({
        onNone: () => Effect.fail(unprocessable("ASSIGNEE_UNRESOLVABLE", `${email} is not a member of this workspace`)),
        onSome: (u) => Effect.succeed(u.email)
      }))

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
            priority = ${priority}, priority_rank = ${PRIORITY_RANK[priority]!}, type = ${body.type ?? t.type}, labels = ${[...labels]}::text[],
            updated_at = now() WHERE id = ${id}`
          for (const [field, old, next] of changes) yield* event(id, actor, { kind: "field_change", field, old, new: next })
          return yield* reread(queue, id)
        }))

    const create = (principal: Principal, groupId: string, body: typeof TicketCreate.Type, parentId: string | null = null, actor: Actor = actorOf(principal)) =>
      Effect.gen(function*() {
        const queue = yield* queueOf(principal, groupId)
        if (body.requester_email !== undefined && body.requester_email.toLowerCase() !== principal.email.toLowerCase()
          && !SYSTEM_ADMINS.includes(principal.role) && !isServicePrincipal(principal)) {
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
              priority_rank: PRIORITY_RANK[body.priority]!,
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
        return toTicket(earlier!)
      }).pipe(Effect.withSpan("Tickets.create"))

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
            sql.insert({ id, tenant_id: r.tenantId, queue_id: queue.id, title: r.title, description: r.description, priority: "MEDIUM", priority_rank: 2, requester_email: requesterEmail, client_request_id: r.key, created_by: r.requesterId })
          } ON CONFLICT (queue_id, client_request_id) WHERE client_request_id IS NOT NULL AND deleted_at IS NULL DO NOTHING RETURNING id`
          if (rows.length > 0) yield* event(id, { name: "AI Employee", type: "ai_employee" }, { kind: "create" })
        })).pipe(Effect.orDie)
        const [ticket] = yield* sql`${sql.unsafe(ticketSelect)} WHERE t.queue_id = ${queue.id} AND t.client_request_id = ${r.key}
          AND t.deleted_at IS NULL`.pipe(ticketRows, Effect.orDie)
        return { id: ticket!.id, number: ticket!.number, groupTag: groupTag(ticket!.label) }
      })

    return {
      raiseFor,
      /** Which of these groups have a queue (the publish check of live_agent_transfer). */
      groupsWithQueue: (tenantId: string, groupIds: ReadonlyArray<string>) =>
        groupIds.length === 0
          ? Effect.succeed(new Set<string>())
          : sql<{ group_id: string }>`SELECT group_id::text AS group_id FROM ticket_queues WHERE tenant_id = ${tenantId} AND group_id::text IN ${sql.in([...groupIds])}`.pipe(
            Effect.map((rows) => new Set(rows.map((r) => r.group_id))),
            Effect.orDie
          ),
      queues: (principal: Principal, routable: boolean) =>
        Effect.gen(function*() {
          yield* enabled(principal)
          const rows = yield* sql`SELECT * FROM ticket_queues WHERE tenant_id = ${principal.tenantId} ORDER BY name, id`.pipe(queueRows, Effect.orDie)
          const existing = yield* people.existingGroups(principal.tenantId as TenantId, rows.map((r) => r.group_id))
          const mine = SYSTEM_ADMINS.includes(principal.role) ? undefined : new Set(yield* people.groupsOf(principal))
          return {
            queues: rows
              .filter((r) => mine === undefined || mine.has(r.group_id))
              .filter((r) => !routable || existing.has(r.group_id))
              .map((r) => toQueue(r, !existing.has(r.group_id)))
          }
        }),
      bind: (principal: Principal, groupId: string, body: typeof QueueCreate.Type) =>
        Effect.gen(function*() {
          yield* access(principal, groupId)
          yield* requireGroupAdmin(principal, groupId, "Binding a queue")
          if ((body.backend === "builtin") !== (body.connection_id === undefined)) {
            return yield* unprocessable("CONNECTION_REQUIRED", body.backend === "builtin" ? "A builtin queue has no connection_id" : "An external queue needs a connection_id")
          }
          const externalGroupId = body.backend === "external"
            ? yield* zendesk.groupFor(principal.tenantId, body.connection_id!, body.name, body.external_group_id)
            : null
          const label = body.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || "queue"
          const rows = yield* sql`INSERT INTO ticket_queues ${
            sql.insert({ id: randomUUID(), tenant_id: principal.tenantId, group_id: groupId, name: body.name, label, backend: body.backend, connection_id: body.connection_id ?? null, external_group_id: externalGroupId, routing_description: body.routing_description ?? null, request_types: body.backend === "external" ? [...ZENDESK_TYPES] : [...(body.request_types ?? [])] })
          } ON CONFLICT (tenant_id, group_id) DO NOTHING RETURNING *`.pipe(queueRows, Effect.orDie)
          if (rows[0] === undefined) return yield* conflict("QUEUE_EXISTS", "This group already has a queue")
          return toQueue(rows[0], false)
        }),
      routing: (principal: Principal, groupId: string, description: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          const [row] = yield* sql`UPDATE ticket_queues SET routing_description = ${description} WHERE id = ${queue.id} RETURNING *`.pipe(queueRows, Effect.orDie)
          return toQueue(row!, false)
        }),
      create,
      list,
      mine: (principal: Principal, p: typeof MyTicketParams.Type) =>
        Effect.gen(function*() {
          yield* enabled(principal)
          const email = principal.email.toLowerCase()
          const groups = SYSTEM_ADMINS.includes(principal.role) ? undefined : yield* people.groupsOf(principal)
          const inGroups = groups !== undefined ? [groups.length === 0 ? sql`false` : sql`q.group_id IN ${sql.in([...groups])}`] : []
          const scope: Array<Statement.Fragment> = [
            sql`t.tenant_id = ${principal.tenantId}`,
            ...inGroups,
            ...(p.group !== undefined ? [sql`q.group_id = ${p.group}`] : []),
            p.scope === "created"
              ? sql`t.requester_email = ${email}`
              : p.scope === "assigned"
              ? sql`t.assignee_email = ${email}`
              : sql`EXISTS (SELECT 1 FROM ticket_comments c WHERE c.ticket_id = t.id AND lower(c.author_email) = ${email})`
          ]
          const external = yield* sql`SELECT q.* FROM ticket_queues q WHERE ${
            sql.and([sql`q.tenant_id = ${principal.tenantId}`, sql`q.backend = 'external'`, ...inGroups, ...(p.group !== undefined ? [sql`q.group_id = ${p.group}`] : [])])
          }`.pipe(queueRows, Effect.orDie)
          const listed = { ...p, sort: undefined }
          if (external.length === 0) {
            const { sortable_by: _, ...result } = yield* page(scope, listed, `me:${p.scope}`, false)
            return result
          }
          // Connected queues answer from Zendesk: both sources are read newest first up to the end
          // of this page and merged (Zendesk's search reaches its first 1,000 results).
          const key = cursorKey(`me:${p.scope}`, { ...listed })
          const offset = yield* offsetOf(key, p.cursor)
          const size = Math.min(p.page_size ?? 25, 100)
          const builtin = (yield* rows(scope, listed, 0, offset + size + 1)).map(toTicket)
          const byConnection = new Map<string, Array<QueueRow>>()
          for (const q of external) byConnection.set(q.connection_id ?? "", [...(byConnection.get(q.connection_id ?? "") ?? []), q])
          const remote = yield* Effect.forEach([...byConnection.values()], (queues) =>
            zendesk.mine(queues.map(connected), listed, p.scope, email, offset + size + 1), { concurrency: 4 })
          const merged = [...builtin, ...remote.flat()].sort((a, b) => b.created_at.getTime() - a.created_at.getTime()).slice(offset, offset + size + 1)
          return { items: merged.slice(0, size), next_cursor: merged.length > size ? cursorOf(key, offset + size) : null }
        }),
      get: (principal: Principal, groupId: string, id: string) =>
        Effect.flatMap(queueOf(principal, groupId), (q) => q.backend === "external" ? zendesk.get(connected(q), id) : reread(q, id)),
      update: (principal: Principal, groupId: string, id: string, body: typeof TicketPatch.Type) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "builtin") return yield* updateBuiltin(principal, groupId, id, body)
          const labels = body.tags !== undefined ? yield* labelsOf(queue, body.tags) : undefined
          yield* checkType(queue, body.type)
          return yield* zendesk.update(connected(queue), id, { title: body.title, description: body.description, priority: body.priority, type: body.type, labels })
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
                yield* sql`UPDATE tickets SET status = ${status}, status_rank = ${STATUS_RANK[status]!}, updated_at = now() WHERE id = ${id}`
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
              yield* sql`UPDATE tickets SET status = 'CLOSED', status_rank = 3, resolution = ${resolution ?? null}, closed_at = now(), updated_at = now() WHERE id = ${id}`
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
          const rows = yield* sql`${sql.unsafe(ticketSelect)} WHERE t.parent_ticket_id = ${id} AND t.deleted_at IS NULL ORDER BY t.number`.pipe(ticketRows, Effect.orDie)
          return { items: rows.map(toTicket), next_cursor: null }
        }),
      comment: (principal: Principal, groupId: string, id: string, body: { body: string; visibility: "public" | "internal" }) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "external") return yield* zendesk.comment(connected(queue), id, principal.email, body.body, body.visibility)
          return yield* write(principal, groupId, id, (_queue, _t, actor) =>
            Effect.gen(function*() {
              const [row] = yield* sql`INSERT INTO ticket_comments ${sql.insert({ id: randomUUID(), ticket_id: id, author_email: principal.email, body: body.body, visibility: body.visibility })}
                RETURNING id, body, visibility, author_email, created_at`.pipe(commentRows)
              yield* event(id, actor, { kind: body.visibility === "public" ? "comment" : "work_note", new: body.body.slice(0, 500) })
              yield* sql`UPDATE tickets SET updated_at = now() WHERE id = ${id}`
              return row!
            }))
        }),
      comments: (principal: Principal, groupId: string, id: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "external") return { items: yield* zendesk.comments(connected(queue), id) }
          yield* ticketIn(queue, id)
          return { items: yield* sql`SELECT id, body, visibility, author_email, created_at FROM ticket_comments WHERE ticket_id = ${id} ORDER BY created_at, id`.pipe(commentRows, Effect.orDie) }
        }),
      events: (principal: Principal, groupId: string, id: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          if (queue.backend === "external") return { items: yield* zendesk.events(connected(queue), id) }
          yield* ticketIn(queue, id)
          return { items: yield* sql`SELECT kind, field, old_value, new_value, actor, actor_type, created_at FROM ticket_events WHERE ticket_id = ${id} ORDER BY id`.pipe(eventRows, Effect.orDie) }
        })
    }
  })
}) {}
