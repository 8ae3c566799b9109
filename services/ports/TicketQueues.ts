import { Context, type Effect } from "effect"

/** Which groups have a ticket queue, as the publish checks ask; the ticketing service implements it. */
export class TicketQueues extends Context.Tag("ports/TicketQueues")<TicketQueues, {
  readonly groupsWithQueue: (tenantId: string, groupIds: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
}>() {}
