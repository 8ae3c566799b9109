import { Effect, Layer } from "effect"
import { TicketDesk } from "../../runtime/nodes/TicketDesk.js"
import { TicketQueues } from "../ports/TicketQueues.js"
import { TicketingHttp } from "./http/TicketingHttp.js"
import { Tickets } from "./Tickets.js"

/** The live_agent_transfer node's desk and the publish checks' queue lookup, over the tickets service. */
const PortsLive = Layer.mergeAll(
  Layer.effect(TicketDesk, Effect.map(Tickets, (tickets) => ({ raise: tickets.raiseFor }))),
  Layer.effect(TicketQueues, Effect.map(Tickets, (tickets) => ({ groupsWithQueue: tickets.groupsWithQueue })))
)

/** Ticketing: queues on user groups and the built-in desk (built below the run kernel: a node type raises tickets). */
export const TicketingLive = PortsLive.pipe(Layer.provideMerge(Tickets.Default))

export const TicketingHttpLive = TicketingHttp
