import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { PayloadTooLarge } from "../../../schemas/Errors.js"
import { asCaller, type CurrentPrincipal, type Principal } from "../../../schemas/Principal.js"
import { MyTickets } from "../MyTickets.js"
import { Queues } from "../Queues.js"
import { Tickets } from "../Tickets.js"

/** Ticketing takes bodies up to 1 MiB (the document's limit; the gateway's own is larger). */
const MAX_BODY = 1024 * 1024

const tooLarge = new PayloadTooLarge({ code: "PAYLOAD_TOO_LARGE", message: "Ticketing request bodies are limited to 1 MiB" })

/**
 * The body's bytes counted, whatever Content-Length says (a chunked body declares none): the
 * request keeps the text it was decoded from, so this reads nothing twice.
 */
const withinLimit = (request: HttpServerRequest.HttpServerRequest) =>
  Number(request.headers["content-length"] ?? 0) > MAX_BODY
    ? Effect.fail(tooLarge)
    : request.method === "GET" || request.method === "DELETE"
    ? Effect.void
    : Effect.flatMap(Effect.orElseSucceed(request.text, () => ""), (text) => Buffer.byteLength(text) > MAX_BODY ? Effect.fail(tooLarge) : Effect.void)

export const TicketingHttp = HttpApiBuilder.group(
  PlatformApi,
  "ticketing",
  (handlers) =>
    Effect.map(Effect.all([Tickets, Queues, MyTickets]), ([tickets, queues, myTickets]) => {
      const asCallerWithinLimit = <A, E, R>(
        f: (p: Principal) => Effect.Effect<A, E, R>
      ): Effect.Effect<A, E | PayloadTooLarge, R | CurrentPrincipal | HttpServerRequest.HttpServerRequest> =>
        Effect.flatMap(
          HttpServerRequest.HttpServerRequest,
          (request): Effect.Effect<A, E | PayloadTooLarge, R | CurrentPrincipal> => Effect.zipRight(withinLimit(request), asCaller(f))
        )
      return handlers
        .handle("queues", ({ urlParams }) => asCallerWithinLimit((p) => queues.queues(p, urlParams.routable === true)))
        .handle("bindQueue", ({ path, payload }) => asCallerWithinLimit((p) => queues.bind(p, path.groupID, payload)))
        .handle("routing", ({ path, payload }) => asCallerWithinLimit((p) => queues.routing(p, path.groupID, payload.routing_description)))
        .handle("createTicket", ({ path, payload }) => asCallerWithinLimit((p) => tickets.create(p, path.groupID, payload)))
        .handle("tickets", ({ path, urlParams }) => asCallerWithinLimit((p) => tickets.list(p, path.groupID, urlParams)))
        .handle("ticket", ({ path }) => asCallerWithinLimit((p) => tickets.get(p, path.groupID, path.ticketID)))
        .handle("updateTicket", ({ path, payload }) => asCallerWithinLimit((p) => tickets.update(p, path.groupID, path.ticketID, payload)))
        .handle("setStatus", ({ path, payload }) => asCallerWithinLimit((p) => tickets.status(p, path.groupID, path.ticketID, payload.status)))
        .handle("close", ({ path, payload }) => asCallerWithinLimit((p) => tickets.close(p, path.groupID, path.ticketID, payload.resolution)))
        .handle("assign", ({ path, payload }) => asCallerWithinLimit((p) => tickets.assign(p, path.groupID, path.ticketID, payload.assignee_email)))
        .handle("move", ({ path, payload }) => asCallerWithinLimit((p) => tickets.move(p, path.groupID, path.ticketID, payload.group_id)))
        .handle("deleteTicket", ({ path }) => asCallerWithinLimit((p) => tickets.remove(p, path.groupID, path.ticketID)))
        .handle("subticket", ({ path, payload }) => asCallerWithinLimit((p) => tickets.subticket(p, path.groupID, path.ticketID, payload)))
        .handle("children", ({ path }) => asCallerWithinLimit((p) => tickets.children(p, path.groupID, path.ticketID)))
        .handle("comment", ({ path, payload }) => asCallerWithinLimit((p) => tickets.comment(p, path.groupID, path.ticketID, payload)))
        .handle("comments", ({ path }) => asCallerWithinLimit((p) => tickets.comments(p, path.groupID, path.ticketID)))
        .handle("events", ({ path }) => asCallerWithinLimit((p) => tickets.events(p, path.groupID, path.ticketID)))
        .handle("myTickets", ({ urlParams }) => asCallerWithinLimit((p) => myTickets.mine(p, urlParams)))
    })
)
