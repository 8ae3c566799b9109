import { SqlClient, type Statement } from "@effect/sql"
import { Effect } from "effect"
import { traced } from "../../platform/Traced.js"
import type { Principal } from "../../schemas/Principal.js"
import type { MyTicketParams } from "../../schemas/Ticketing.js"
import { People } from "../ports/People.js"
import { QueueAccess } from "./QueueAccess.js"
import { ticketPages } from "./TicketPages.js"
import { connected, cursorKey, cursorOf, offsetOf, queueRows, SYSTEM_ADMINS, toTicket } from "./TicketRows.js"
import type { QueueRow } from "./TicketRows.js"
import { ZendeskDesk } from "./zendesk/ZendeskDesk.js"

/** `/me/tickets`: the caller's tickets across the queues they reach, built-in and connected, newest first. */
export class MyTickets extends Effect.Service<MyTickets>()("MyTickets", {
  dependencies: [QueueAccess.Default, ZendeskDesk.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const people = yield* People
    const zendesk = yield* ZendeskDesk
    const { enabled } = yield* QueueAccess
    const { page, rows } = ticketPages(sql)

    return traced("MyTickets", {
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
            sql.and([
              sql`q.tenant_id = ${principal.tenantId}`,
              sql`q.backend = 'external'`,
              ...inGroups,
              ...(p.group !== undefined ? [sql`q.group_id = ${p.group}`] : [])
            ])
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
          const merged = [...builtin, ...remote.flat()].sort((a, b) =>
            b.created_at.getTime() - a.created_at.getTime()
          ).slice(offset, offset + size + 1)
          return { items: merged.slice(0, size), next_cursor: merged.length > size ? cursorOf(key, offset + size) : null }
        })
    })
  })
}) {}
