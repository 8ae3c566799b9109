import { Effect, Layer } from "effect"
import { isolated } from "../../platform/Isolated.js"
import { TicketDesk } from "../../runtime/nodes/TicketDesk.js"
import { Authentication } from "../../schemas/Security.js"
import { TicketQueues } from "../ports/TicketQueues.js"
import { TicketingHttp } from "./http/TicketingHttp.js"
import { MyTickets } from "./MyTickets.js"
import { Queues } from "./Queues.js"
import { Tickets } from "./Tickets.js"

/** The live_agent_transfer node's desk and the publish checks' queue lookup, over the tickets service. */
const PortsLive = Layer.mergeAll(
  Layer.effect(TicketDesk, Effect.map(Tickets, (tickets) => ({ raise: tickets.raiseFor }))),
  Layer.effect(TicketQueues, Effect.map(Queues, (queues) => ({ groupsWithQueue: queues.groupsWithQueue })))
)

/**
 * Ticketing: queues on user groups over the built-in desk or a connected Zendesk (built below the
 * run kernel: a node type raises tickets; above integrations, whose connections it uses).
 */
export const TicketingLive = PortsLive.pipe(Layer.provideMerge(Layer.mergeAll(Tickets.Default, Queues.Default, MyTickets.Default)))

export const TicketingHttpLive = isolated(TicketingHttp, Authentication, Tickets, Queues, MyTickets)
