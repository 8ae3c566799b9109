import { Tickets } from "./Tickets.js"
import { TicketingHttp } from "./http/TicketingHttp.js"

/** Ticketing: queues on user groups and the built-in desk. */
export const TicketingLive = Tickets.Default

export const TicketingHttpLive = TicketingHttp
