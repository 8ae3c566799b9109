import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { conflict, unprocessable } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import type { QueueCreate } from "../../schemas/Ticketing.js"
import { People } from "../ports/People.js"
import { QueueAccess } from "./QueueAccess.js"
import { queueRows, SYSTEM_ADMINS, toQueue } from "./TicketRows.js"
import { ZendeskDesk } from "./zendesk/ZendeskDesk.js"
import { ZENDESK_TYPES } from "./zendesk/ZendeskMapping.js"

/** Ticket queues on user groups: the ones the caller sees, binding one (built-in or a connected Zendesk), its routing. */
export class Queues extends Effect.Service<Queues>()("Queues", {
  dependencies: [QueueAccess.Default, ZendeskDesk.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const people = yield* People
    const zendesk = yield* ZendeskDesk
    const { enabled, access, requireGroupAdmin, queueOf } = yield* QueueAccess

    return traced("Queues", {
      /** Which of these groups have a queue (the publish check of live_agent_transfer). */
      groupsWithQueue: (tenantId: string, groupIds: ReadonlyArray<string>) =>
        groupIds.length === 0
          ? Effect.succeed(new Set<string>())
          : sql`SELECT group_id::text AS group_id FROM ticket_queues WHERE tenant_id = ${tenantId} AND group_id::text IN ${sql.in([...groupIds])}`.pipe(
            decodeRows("ticket_queues", Schema.Struct({ group_id: Schema.String }))
          ).pipe(
            Effect.map((rows) => new Set(rows.map((r) => r.group_id))),
            Effect.orDie
          ),
      queues: (principal: Principal, routable: boolean) =>
        Effect.gen(function*() {
          yield* enabled(principal)
          const rows = yield* sql`SELECT * FROM ticket_queues WHERE tenant_id = ${principal.tenantId} ORDER BY name, id`.pipe(queueRows, Effect.orDie)
          const existing = yield* people.existingGroups(principal.tenantId, rows.map((r) => r.group_id))
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
            return yield* unprocessable(
              "CONNECTION_REQUIRED",
              body.backend === "builtin" ? "A builtin queue has no connection_id" : "An external queue needs a connection_id"
            )
          }
          const externalGroupId = body.backend === "external"
            ? yield* zendesk.groupFor(principal.tenantId, body.connection_id!, body.name, body.external_group_id)
            : null
          const label = body.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || "queue"
          const rows = yield* sql`INSERT INTO ticket_queues ${
            sql.insert({
              id: randomUUID(),
              tenant_id: principal.tenantId,
              group_id: groupId,
              name: body.name,
              label,
              backend: body.backend,
              connection_id: body.connection_id ?? null,
              external_group_id: externalGroupId,
              routing_description: body.routing_description ?? null,
              request_types: body.backend === "external" ? [...ZENDESK_TYPES] : [...(body.request_types ?? [])]
            })
          } ON CONFLICT (tenant_id, group_id) DO NOTHING RETURNING *`.pipe(queueRows, Effect.orDie)
          if (rows[0] === undefined) return yield* conflict("QUEUE_EXISTS", "This group already has a queue")
          return toQueue(rows[0], false)
        }),
      routing: (principal: Principal, groupId: string, description: string) =>
        Effect.gen(function*() {
          const queue = yield* queueOf(principal, groupId)
          const [row] = yield* sql`UPDATE ticket_queues SET routing_description = ${description} WHERE id = ${queue.id} RETURNING *`.pipe(
            queueRows,
            Effect.orDie
          )
          return toQueue(row, false)
        })
    })
  })
}) {}
