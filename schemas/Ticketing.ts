import { Schema } from "effect"
import { DateTimeParam, optionalPageSize } from "./Pagination.js"

export const TicketStatus = Schema.Literal("OPEN", "IN_PROGRESS", "HOLD", "CLOSED")
export const Priorities = ["CRITICAL", "HIGH", "MEDIUM", "LOW"] as const
/** Matched case-insensitively on input. */
export const PriorityInput = Schema.transform(Schema.String, Schema.Literal(...Priorities), {
  strict: false,
  decode: (s) => s.toUpperCase(),
  encode: (s) => s
})

export const QueueCreate = Schema.Struct({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  backend: Schema.optionalWith(Schema.Literal("builtin", "external"), { default: () => "builtin" as const }),
  connection_id: Schema.optional(Schema.UUID),
  /** A connected queue's Zendesk group; omitted: the group named like the queue, created if there is none. */
  external_group_id: Schema.optional(Schema.Int.pipe(Schema.positive())),
  routing_description: Schema.optional(Schema.String),
  request_types: Schema.optional(Schema.Array(Schema.String))
})

export const RoutingPatch = Schema.Struct({ routing_description: Schema.String })

export const Queue = Schema.Struct({
  id: Schema.UUID,
  group_id: Schema.UUID,
  group_tag: Schema.String,
  name: Schema.String,
  backend: Schema.Literal("builtin", "external"),
  connection_id: Schema.NullOr(Schema.String),
  routing_description: Schema.NullOr(Schema.String),
  group_archived: Schema.Boolean,
  request_types: Schema.Array(Schema.String),
  external_group_id: Schema.NullOr(Schema.Number)
})

export const QueueList = Schema.Struct({ queues: Schema.Array(Queue) })

export const TicketCreate = Schema.Struct({
  client_request_id: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))),
  title: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(500)),
  description: Schema.optionalWith(Schema.String, { default: () => "" }),
  priority: Schema.optionalWith(PriorityInput, { default: () => "MEDIUM" as const }),
  type: Schema.optional(Schema.String),
  tags: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  requester_email: Schema.optional(Schema.String),
  assignee_email: Schema.optional(Schema.String)
})

export const TicketPatch = Schema.Struct({
  title: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(500))),
  description: Schema.optional(Schema.String),
  priority: Schema.optional(PriorityInput),
  type: Schema.optional(Schema.String),
  tags: Schema.optional(Schema.Array(Schema.String))
})

export const StatusChange = Schema.Struct({ status: TicketStatus })
export const CloseRequest = Schema.Struct({ resolution: Schema.optional(Schema.String) })
export const AssignRequest = Schema.Struct({ assignee_email: Schema.NullOr(Schema.String) })
export const MoveRequest = Schema.Struct({ group_id: Schema.UUID })
export const CommentCreate = Schema.Struct({
  body: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(65_536)),
  visibility: Schema.optionalWith(Schema.Literal("public", "internal"), { default: () => "public" as const })
})

export const Ticket = Schema.Struct({
  /** A UUID on the built-in desk; the Zendesk ticket id on a connected queue. */
  id: Schema.String,
  number: Schema.Number,
  group_id: Schema.UUID,
  group_tag: Schema.String,
  title: Schema.String,
  description: Schema.String,
  status: TicketStatus,
  priority: Schema.Literal(...Priorities),
  type: Schema.NullOr(Schema.String),
  labels: Schema.Array(Schema.String),
  requester_email: Schema.String,
  assignee_email: Schema.NullOr(Schema.String),
  parent_ticket_id: Schema.NullOr(Schema.String),
  client_request_id: Schema.NullOr(Schema.String),
  resolution: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date,
  closed_at: Schema.NullOr(Schema.Date)
})
export type Ticket = typeof Ticket.Type

export const TicketListParams = Schema.Struct({
  status: Schema.optional(TicketStatus),
  assignee_email: Schema.optional(Schema.String),
  requester_email: Schema.optional(Schema.String),
  label: Schema.optional(Schema.String),
  priority: Schema.optional(PriorityInput),
  q: Schema.optional(Schema.String),
  created_after: Schema.optional(DateTimeParam),
  created_before: Schema.optional(DateTimeParam),
  sort: Schema.optional(Schema.String),
  order: Schema.optional(Schema.Literal("asc", "desc")),
  cursor: Schema.optional(Schema.String),
  page_size: optionalPageSize
})

export const TicketPage = Schema.Struct({
  items: Schema.Array(Ticket),
  next_cursor: Schema.NullOr(Schema.String),
  sortable_by: Schema.optional(Schema.Array(Schema.String))
})

export const MyTicketParams = Schema.Struct({
  ...TicketListParams.fields,
  scope: Schema.optionalWith(Schema.Literal("created", "assigned", "commented"), { default: () => "created" as const }),
  group: Schema.optional(Schema.UUID)
})

export const TicketComment = Schema.Struct({
  id: Schema.String,
  body: Schema.String,
  visibility: Schema.Literal("public", "internal"),
  author_email: Schema.String,
  created_at: Schema.Date
})

export const CommentList = Schema.Struct({ items: Schema.Array(TicketComment) })

export const TicketEvent = Schema.Struct({
  kind: Schema.Literal("create", "comment", "work_note", "field_change"),
  field: Schema.NullOr(Schema.String),
  old_value: Schema.NullOr(Schema.String),
  new_value: Schema.NullOr(Schema.String),
  actor: Schema.String,
  actor_type: Schema.Literal("user", "ai_employee", "service"),
  created_at: Schema.Date
})

export const EventList = Schema.Struct({ items: Schema.Array(TicketEvent) })
