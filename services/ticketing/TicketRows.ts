import { Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { isServicePrincipal } from "../../schemas/Authorization.js"
import { unprocessable } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import type { Role } from "../../schemas/Roles.js"
import { Ticket, TicketEvent } from "../../schemas/Ticketing.js"
import type { ConnectedQueue } from "./zendesk/ZendeskDesk.js"

/** The ticketing tables' rows, their answers, the actors of the timeline and the list cursors. */
export const SYSTEM_ADMINS: ReadonlyArray<Role> = ["env_admin", "system_admin"]
export const RESERVED_PREFIX = "queue:"
export const STATUS_RANK: Record<string, number> = { OPEN: 0, IN_PROGRESS: 1, HOLD: 2, CLOSED: 3 }
export const PRIORITY_RANK: Record<string, number> = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3 }
export const SORTABLE_BY = ["number", "priority", "status", "updated_at"] as const
export const SORT_COLUMN: Record<string, string> = { number: "number", priority: "priority_rank", status: "status_rank", updated_at: "updated_at" }

export const QueueRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  group_id: Schema.UUID,
  name: Schema.String,
  label: Schema.String,
  backend: Schema.Literal("builtin", "external"),
  connection_id: Schema.NullOr(Schema.String),
  routing_description: Schema.NullOr(Schema.String),
  request_types: Schema.Array(Schema.String),
  external_group_id: Schema.NullOr(Schema.Union(Schema.Number, Schema.NumberFromString))
})
export type QueueRow = typeof QueueRow.Type
export const queueRows = decodeRows("ticket_queues", QueueRow)

const { group_tag: _tag, ...ticketFields } = Ticket.fields
export const TicketRow = Schema.Struct({
  ...ticketFields,
  number: Schema.Union(Schema.Number, Schema.NumberFromString),
  queue_id: Schema.UUID,
  label: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp,
  closed_at: Schema.NullOr(Timestamp)
})
export type TicketRow = typeof TicketRow.Type
export const ticketRows = decodeRows("tickets", TicketRow)

export const EventRow = Schema.Struct({ ...TicketEvent.fields, created_at: Timestamp })
export const eventRows = decodeRows("ticket_events", EventRow)

export const CommentRow = Schema.Struct({
  id: Schema.UUID,
  body: Schema.String,
  visibility: Schema.Literal("public", "internal"),
  author_email: Schema.String,
  created_at: Timestamp
})
export const commentRows = decodeRows("ticket_comments", CommentRow)

export const groupTag = (label: string) => `${RESERVED_PREFIX}${label}`
export const toQueue = (q: QueueRow, archived: boolean) => ({
  id: q.id,
  group_id: q.group_id,
  group_tag: groupTag(q.label),
  name: q.name,
  backend: q.backend,
  connection_id: q.connection_id,
  routing_description: q.routing_description,
  group_archived: archived,
  request_types: q.request_types,
  external_group_id: q.external_group_id
})
export const connected = (q: QueueRow): ConnectedQueue => ({
  id: q.id,
  tenant_id: q.tenant_id,
  group_id: q.group_id,
  group_tag: groupTag(q.label),
  connection_id: q.connection_id,
  external_group_id: q.external_group_id
})
export const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)
export const toTicket = ({ queue_id: _q, label, ...t }: TicketRow) => ({ ...t, group_tag: groupTag(label) })

export const ticketSelect = `SELECT t.id, t.number, t.queue_id, q.group_id, q.label, t.title, t.description, t.status, t.priority, t.type, t.labels,
  t.requester_email, t.assignee_email, t.parent_ticket_id::text AS parent_ticket_id, t.client_request_id, t.resolution, t.created_at, t.updated_at, t.closed_at
  FROM tickets t JOIN ticket_queues q ON q.id = t.queue_id`

/** Who acts: a person, or a service account (an API key). */
export interface Actor {
  readonly name: string
  readonly type: "user" | "ai_employee" | "service"
}
export const actorOf = (principal: Principal): Actor => ({ name: principal.email, type: isServicePrincipal(principal) ? "service" : "user" })

export const cursorKey = (groupId: string | undefined, f: Record<string, unknown>) =>
  createHash("sha256").update(JSON.stringify({ g: groupId, ...f, cursor: undefined, page_size: undefined })).digest("base64url").slice(0, 16)
export const Cursor = Schema.parseJson(Schema.Struct({ k: Schema.String, o: Schema.Int }))
export const cursorOf = (key: string, offset: number) => Buffer.from(JSON.stringify({ k: key, o: offset })).toString("base64url")
/** The offset a cursor carries, if it was made for this list, group and sort. */
export const offsetOf = (key: string, cursor: string | undefined) => {
  if (cursor === undefined) return Effect.succeed(0)
  const decoded = Option.getOrUndefined(Schema.decodeUnknownOption(Cursor)(Buffer.from(cursor, "base64url").toString()))
  return decoded === undefined || decoded.k !== key || decoded.o < 0
    ? Effect.fail(unprocessable("INVALID_CURSOR", "This cursor belongs to another list, group or sort"))
    : Effect.succeed(decoded.o)
}
export const sortRefused = (sortable: ReadonlyArray<string>) =>
  unprocessable("SORT_NOT_SUPPORTED", `sort must be one of ${sortable.join(", ")}`, [{ path: ["sort"], message: "not served" }])
