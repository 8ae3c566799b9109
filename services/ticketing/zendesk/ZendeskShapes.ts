import { Effect, Schema } from "effect"
import { FailedDependency, notFound } from "../../../schemas/Errors.js"
import type { Priorities } from "../../../schemas/Ticketing.js"
import { ZAudit, ZComment, ZTicket, ZUser } from "./ZendeskMapping.js"

// What the Zendesk connector reads and sends: the desk's own shapes, Zendesk's envelopes decoded
// (anything else is "not the Zendesk Support API"), its ids and page limit.

/** The queue fields a connected desk works with. */
export interface ConnectedQueue {
  readonly id: string
  readonly tenant_id: string
  readonly group_id: string
  readonly group_tag: string
  readonly connection_id: string | null
  readonly external_group_id: number | null
}

export interface NewTicket {
  readonly key: string | undefined
  readonly title: string
  readonly description: string
  readonly priority: typeof Priorities[number]
  readonly type: string | null
  readonly labels: ReadonlyArray<string>
  readonly requesterEmail: string
  readonly assigneeEmail: string | null
  readonly parentId: string | null
  readonly byAiEmployee: boolean
}

export const TicketEnvelope = Schema.Struct({ ticket: ZTicket })
export const UsersEnvelope = Schema.Struct({ users: Schema.Array(ZUser) })
export const SearchEnvelope = Schema.Struct({
  results: Schema.Array(Schema.Struct({ ...ZTicket.fields, result_type: Schema.optional(Schema.String) })),
  next_page: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
export const CommentsEnvelope = Schema.Struct({
  comments: Schema.Array(ZComment),
  next_page: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
export const AuditsEnvelope = Schema.Struct({
  audits: Schema.Array(ZAudit),
  next_page: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
const Group = Schema.Struct({ id: Schema.Number, name: Schema.String })
export const GroupsEnvelope = Schema.Struct({
  groups: Schema.Array(Group),
  next_page: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
export const GroupEnvelope = Schema.Struct({ group: Group })

export const notZendesk = new FailedDependency({
  code: "CONNECTION_UNAVAILABLE",
  message: "The queue's connection answered something that is not the Zendesk Support API"
})
export const decode = <A, I>(schema: Schema.Schema<A, I>) => (body: unknown) => Schema.decodeUnknown(schema)(body).pipe(Effect.mapError(() => notZendesk))

/** Zendesk ticket ids are positive integers; the platform's path parameter is a string. */
export const zendeskId = (id: string) => (/^[1-9][0-9]{0,15}$/.test(id) ? Effect.succeed(Number(id)) : Effect.fail(notFound("Ticket")))
/** Zendesk pages carry up to 100 results; lists read at most this many pages for one answer. */
export const MAX_PAGES = 10
