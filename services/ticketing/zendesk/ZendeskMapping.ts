import { Schema } from "effect"
import type { TicketListParams, TicketStatus } from "../../../schemas/Ticketing.js"

/** Zendesk's ticket types, in the order its API lists them: a connected queue's `request_types`. */
export const ZENDESK_TYPES = ["problem", "incident", "question", "task"] as const
/** Zendesk search sorts by these (not by ticket id), so `number` is not served on a connected queue. */
export const ZENDESK_SORTABLE_BY = ["priority", "status", "updated_at"] as const

/** Tags the platform keeps on Zendesk tickets for itself; never shown as labels. */
export const PARENT_TAG = "platform_subticket_of_"
export const AI_EMPLOYEE_TAG = "platform_raised_by_ai_employee"
const isInternalTag = (tag: string) => tag.startsWith(PARENT_TAG) || tag === AI_EMPLOYEE_TAG

const nullable = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(Schema.NullOr(s), { default: () => null })

export const ZTicket = Schema.Struct({
  id: Schema.Number,
  subject: nullable(Schema.String),
  description: nullable(Schema.String),
  status: Schema.String,
  priority: nullable(Schema.String),
  type: nullable(Schema.String),
  tags: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  requester_id: nullable(Schema.Number),
  assignee_id: nullable(Schema.Number),
  group_id: nullable(Schema.Number),
  external_id: nullable(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type ZTicket = typeof ZTicket.Type

export const ZUser = Schema.Struct({ id: Schema.Number, email: nullable(Schema.String), name: nullable(Schema.String), role: nullable(Schema.String) })
export type ZUser = typeof ZUser.Type

export const ZComment = Schema.Struct({
  id: Schema.Number,
  author_id: Schema.Number,
  body: Schema.optionalWith(Schema.String, { default: () => "" }),
  public: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  created_at: Schema.String
})

export const ZAudit = Schema.Struct({
  id: Schema.Number,
  author_id: Schema.Number,
  created_at: Schema.String,
  events: Schema.Array(Schema.Struct({
    type: Schema.String,
    field_name: Schema.optional(Schema.String),
    value: Schema.optional(Schema.Unknown),
    previous_value: Schema.optional(Schema.Unknown),
    body: Schema.optional(Schema.String),
    public: Schema.optional(Schema.Boolean)
  }))
})
export type ZAudit = typeof ZAudit.Type

export const statusIn = (zendesk: string): typeof TicketStatus.Type => {
  switch (zendesk) {
    case "new":
      return "OPEN"
    case "open":
      return "IN_PROGRESS"
    case "pending":
    case "hold":
      return "HOLD"
    default:
      return "CLOSED"
  }
}
export const statusOut = { OPEN: "new", IN_PROGRESS: "open", HOLD: "pending", CLOSED: "solved" } as const
/** A search term per value a status stands for (Zendesk ORs repeated terms of one keyword). */
const statusTerms = { OPEN: ["new"], IN_PROGRESS: ["open"], HOLD: ["pending", "hold"], CLOSED: ["solved", "closed"] } as const

export const priorityIn = (zendesk: string | null) =>
  zendesk === "urgent" ? "CRITICAL" as const : zendesk === "high" ? "HIGH" as const : zendesk === "low" ? "LOW" as const : "MEDIUM" as const
export const priorityOut = { CRITICAL: "urgent", HIGH: "high", MEDIUM: "normal", LOW: "low" } as const

export const isClosed = (t: ZTicket) => t.status === "solved" || t.status === "closed"

/** The ticket as the platform answers it, on the queue that holds it. */
export const ticketOf = (t: ZTicket, queue: { group_id: string; group_tag: string }, emails: ReadonlyMap<number, string>) => {
  const parent = t.tags.find((tag) => tag.startsWith(PARENT_TAG))
  return {
    id: String(t.id),
    number: t.id,
    group_id: queue.group_id,
    group_tag: queue.group_tag,
    title: t.subject ?? "",
    description: t.description ?? "",
    status: statusIn(t.status),
    priority: priorityIn(t.priority),
    type: t.type,
    labels: t.tags.filter((tag) => !isInternalTag(tag)),
    requester_email: (t.requester_id !== null ? emails.get(t.requester_id) : undefined) ?? "",
    assignee_email: t.assignee_id !== null ? emails.get(t.assignee_id) ?? null : null,
    parent_ticket_id: parent !== undefined ? parent.slice(PARENT_TAG.length) : null,
    client_request_id: t.external_id,
    resolution: null,
    created_at: new Date(t.created_at),
    updated_at: new Date(t.updated_at),
    closed_at: isClosed(t) ? new Date(t.updated_at) : null
  }
}

/** Platform labels plus the tags the platform keeps on the ticket for itself. */
export const tagsWith = (labels: ReadonlyArray<string>, existing: ReadonlyArray<string>) => [...labels, ...existing.filter(isInternalTag)]

const quoted = (value: string) => `"${value.replace(/["\\]/g, " ")}"`

/**
 * A search query for a queue's list: its group and each filter as Zendesk's search terms. `q` is
 * Zendesk's own text search (whole words, not substrings: its search cannot do better).
 */
export const searchQuery = (groupIds: ReadonlyArray<number>, p: typeof TicketListParams.Type, extra: ReadonlyArray<string> = []) =>
  [
    "type:ticket",
    ...groupIds.map((g) => `group:${g}`),
    ...(p.status !== undefined ? statusTerms[p.status].map((s) => `status:${s}`) : []),
    ...(p.priority !== undefined ? [`priority:${priorityOut[p.priority]}`] : []),
    ...(p.assignee_email !== undefined ? [`assignee:${p.assignee_email.toLowerCase()}`] : []),
    ...(p.requester_email !== undefined ? [`requester:${p.requester_email.toLowerCase()}`] : []),
    ...(p.label !== undefined ? [`tags:${quoted(p.label)}`] : []),
    ...(p.created_after !== undefined ? [`created>=${p.created_after.toISOString()}`] : []),
    ...(p.created_before !== undefined ? [`created<${p.created_before.toISOString()}`] : []),
    ...extra,
    ...(p.q !== undefined && p.q.trim() !== "" ? [quoted(p.q.trim())] : [])
  ].join(" ")

/** Zendesk's sort for the platform's: newest first by default; priority runs the other way (urgent is its highest). */
export const searchSort = (p: typeof TicketListParams.Type) => {
  if (p.sort === undefined) return { sort_by: "created_at", sort_order: "desc" }
  const asc = p.order !== "desc"
  if (p.sort === "priority") return { sort_by: "priority", sort_order: asc ? "desc" : "asc" }
  return { sort_by: p.sort, sort_order: asc ? "asc" : "desc" }
}

export interface TimelineEntry {
  readonly kind: "create" | "comment" | "work_note" | "field_change"
  readonly field: string | null
  readonly old_value: string | null
  readonly new_value: string | null
  readonly actor: string
  readonly actor_type: "user" | "ai_employee" | "service"
  readonly created_at: Date
}

const FIELDS: Record<string, string> = {
  status: "status",
  priority: "priority",
  assignee_id: "assignee",
  group_id: "queue",
  subject: "title",
  type: "type",
  tags: "labels"
}

/** User ids an audit list names (authors and assignees), to resolve to emails. */
export const audienceOf = (audits: ReadonlyArray<ZAudit>) =>
  audits.flatMap((a) => [
    a.author_id,
    ...a.events.filter((e) => e.field_name === "assignee_id").flatMap((e) => [e.value, e.previous_value]).map(Number).filter((n) => Number.isFinite(n) && n > 0)
  ])

/**
 * The activity timeline of a Zendesk ticket from its audits: the creating audit is one `create`,
 * comments are `comment` (public) or `work_note`, and changes of the fields the platform shows are
 * `field_change` with canonical values (status and priority as the platform's, the assignee as an
 * email, the queue as its group tag). The connection's own user and Zendesk itself act as `service`.
 */
export const timelineOf = (
  audits: ReadonlyArray<ZAudit>,
  ctx: { emails: ReadonlyMap<number, string>; serviceUserId: number | undefined; groupTags: ReadonlyMap<number, string>; raisedByAiEmployee: boolean }
): Array<TimelineEntry> => {
  const canonical = (field: string, value: unknown): string | null => {
    if (value === null || value === undefined || value === "") return null
    switch (field) {
      case "status":
        return statusIn(String(value))
      case "priority":
        return priorityIn(String(value))
      case "assignee_id":
        return ctx.emails.get(Number(value)) ?? String(value)
      case "group_id":
        return ctx.groupTags.get(Number(value)) ?? `zendesk-group:${String(value)}`
      case "tags": {
        const tags = Array.isArray(value) ? value.map(String) : String(value).split(/\s+/)
        return tags.filter((t) => t !== "" && !isInternalTag(t)).join(",")
      }
      default:
        return String(value)
    }
  }
  return audits.flatMap((audit) => {
    const created_at = new Date(audit.created_at)
    const byService = audit.author_id === -1 || audit.author_id === ctx.serviceUserId
    const actor = ctx.emails.get(audit.author_id) ?? (audit.author_id === -1 ? "Zendesk" : String(audit.author_id))
    const creating = audit.events.some((e) => e.type === "Create")
    const actor_type = creating && ctx.raisedByAiEmployee ? "ai_employee" as const : byService ? "service" as const : "user" as const
    if (creating) return [{ kind: "create" as const, field: null, old_value: null, new_value: null, actor, actor_type, created_at }]
    return audit.events.flatMap((e): Array<TimelineEntry> => {
      if (e.type === "Comment") {
        return [{
          kind: e.public === false ? "work_note" : "comment",
          field: null,
          old_value: null,
          new_value: (e.body ?? "").slice(0, 500),
          actor,
          actor_type,
          created_at
        }]
      }
      const field = e.field_name !== undefined ? FIELDS[e.field_name] : undefined
      if (e.type !== "Change" || field === undefined) return []
      const old_value = canonical(e.field_name!, e.previous_value)
      const new_value = canonical(e.field_name!, e.value)
      return old_value === new_value ? [] : [{ kind: "field_change", field, old_value, new_value, actor, actor_type, created_at }]
    })
  })
}
