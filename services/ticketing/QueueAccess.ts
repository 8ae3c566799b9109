import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { traced } from "../../platform/Traced.js"
import { GROUP_ADMINS, requireReader } from "../../schemas/Authorization.js"
import { Forbidden, NotFound, notFound } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { People } from "../ports/People.js"
import { isUuid, queueRows, SYSTEM_ADMINS, ticketRows, ticketSelect } from "./TicketRows.js"
import type { QueueRow } from "./TicketRows.js"

/**
 * Who reaches a queue and its tickets: ticketing enabled for the workspace, user groups on, the
 * group resolvable, the caller an effective member of it (System Admins always); group admins for
 * what the document reserves to them.
 */
export class QueueAccess extends Effect.Service<QueueAccess>()("QueueAccess", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const people = yield* People

    /** Every route: 404 while ticketing is off (for every role), then 403 for no_access. */
    const enabled = (principal: Principal) =>
      principal.settings.ticketing_enabled
        ? requireReader(principal)
        : Effect.fail(new NotFound({ code: "TICKETING_DISABLED", message: "Ticketing is not enabled for this workspace" }))

    /** Ticketing on, groups on, the group resolvable, and the caller in it (System Admins always). */
    const access = (principal: Principal, groupId: string) =>
      Effect.gen(function*() {
        yield* enabled(principal)
        if (!principal.settings.user_groups_enabled) {
          return yield* new Forbidden({ code: "GROUP_UNRESOLVABLE", message: "User groups are not enabled for this workspace" })
        }
        const exists = yield* people.existingGroups(principal.tenantId, [groupId])
        if (!exists.has(groupId)) {
          return yield* new Forbidden({ code: "GROUP_UNRESOLVABLE", message: "The group cannot be resolved in this workspace" })
        }
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
      !isUuid(id) ?
        Effect.fail(notFound("Ticket")) :
        sql`${sql.unsafe(ticketSelect)} WHERE t.queue_id = ${queue.id} AND t.id = ${id} AND t.deleted_at IS NULL ${lock ? sql`FOR UPDATE OF t` : sql``}`.pipe(
          ticketRows,
          Effect.orDie,
          Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Ticket")) : Effect.succeed(rows[0]))
        )

    return traced("QueueAccess", { enabled, access, requireGroupAdmin, queueOf, ticketIn })
  })
}) {}
