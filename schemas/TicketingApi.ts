import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, FailedDependency, ServiceUnavailable, Unprocessable } from "./Errors.js"
import { BooleanFromString } from "./QueryParams.js"
import * as Security from "./Security.js"
import * as T from "./Ticketing.js"

const groupId = HttpApiSchema.param("groupID", Schema.UUID)
/** A UUID on the built-in desk, the Zendesk ticket id (digits) on a connected queue. */
const ticketId = HttpApiSchema.param("ticketID", Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64)))

/** Ticket queues on user groups and the built-in desk (404 everywhere while the workspace's ticketing is off). */
export class TicketingApi extends HttpApiGroup.make("ticketing")
  .add(HttpApiEndpoint.get("queues", "/queues").setUrlParams(Schema.Struct({ routable: Schema.optional(BooleanFromString) })).addSuccess(T.QueueList))
  .add(
    HttpApiEndpoint.post("bindQueue")`/groups/${groupId}/queue`
      .setPayload(T.QueueCreate)
      .addSuccess(T.Queue, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Group admins and System Admins; builtin omits connection_id; external (Zendesk) names connection_id, an installed integration of category ticketing with credentials {subdomain or base_url, email, api_token}, and optionally external_group_id (else the Zendesk group named like the queue, created if missing); its request_types are Zendesk's ticket types; the label derives from the name once"
      )
  )
  .add(HttpApiEndpoint.patch("routing")`/groups/${groupId}/queue/routing`.setPayload(T.RoutingPatch).addSuccess(T.Queue))
  .add(HttpApiEndpoint.post("createTicket")`/groups/${groupId}/tickets`.setPayload(T.TicketCreate).addSuccess(T.Ticket, { status: 201 }))
  .add(
    HttpApiEndpoint.get("tickets")`/groups/${groupId}/tickets`
      .setUrlParams(T.TicketListParams)
      .addSuccess(T.TicketPage)
      .annotate(
        OpenApi.Description,
        "Filters status, priority, assignee_email, requester_email, label (exact), q (substring), created_after (inclusive), created_before (exclusive); sort number|priority|status|updated_at with order; opaque cursors bound to their list; page_size default 25, at most 100"
      )
  )
  .add(HttpApiEndpoint.get("ticket")`/groups/${groupId}/tickets/${ticketId}`.addSuccess(T.Ticket))
  .add(HttpApiEndpoint.patch("updateTicket")`/groups/${groupId}/tickets/${ticketId}`.setPayload(T.TicketPatch).addSuccess(T.Ticket))
  .add(HttpApiEndpoint.post("setStatus")`/groups/${groupId}/tickets/${ticketId}/status`.setPayload(T.StatusChange).addSuccess(T.Ticket))
  .add(HttpApiEndpoint.post("close")`/groups/${groupId}/tickets/${ticketId}/close`.setPayload(T.CloseRequest).addSuccess(T.Ticket))
  .add(HttpApiEndpoint.post("assign")`/groups/${groupId}/tickets/${ticketId}/assign`.setPayload(T.AssignRequest).addSuccess(T.Ticket))
  .add(HttpApiEndpoint.post("move")`/groups/${groupId}/tickets/${ticketId}/move`.setPayload(T.MoveRequest).addSuccess(T.Ticket))
  .add(HttpApiEndpoint.del("deleteTicket")`/groups/${groupId}/tickets/${ticketId}`.addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.post("subticket")`/groups/${groupId}/tickets/${ticketId}/subtickets`.setPayload(T.TicketCreate).addSuccess(T.Ticket, { status: 201 }))
  .add(HttpApiEndpoint.get("children")`/groups/${groupId}/tickets/${ticketId}/children`.addSuccess(T.TicketPage))
  .add(
    HttpApiEndpoint.post("comment")`/groups/${groupId}/tickets/${ticketId}/comments`.setPayload(T.CommentCreate).addSuccess(T.TicketComment, { status: 201 })
  )
  .add(HttpApiEndpoint.get("comments")`/groups/${groupId}/tickets/${ticketId}/comments`.addSuccess(T.CommentList))
  .add(HttpApiEndpoint.get("events")`/groups/${groupId}/tickets/${ticketId}/events`.addSuccess(T.EventList))
  .add(HttpApiEndpoint.get("myTickets", "/me/tickets").setUrlParams(T.MyTicketParams).addSuccess(T.TicketPage))
  .addError(Conflict)
  .addError(Unprocessable)
  .addError(FailedDependency)
  .addError(ServiceUnavailable)
  .middleware(Security.Authentication)
  .prefix("/api/v1/hcm-ticketing")
{}
