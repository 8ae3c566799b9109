import { Context, type Effect } from "effect"

/** Tickets as the live_agent_transfer node raises them; the ticketing service implements it. */
export class TicketDesk extends Context.Tag("TicketDesk")<TicketDesk, {
  /** Raises a ticket on the group's queue for the run (once per run and node: a re-run finds it). */
  readonly raise: (request: {
    readonly tenantId: string
    readonly groupId: string
    readonly key: string
    readonly title: string
    readonly description: string
    readonly requesterId: string | null
  }) => Effect.Effect<{ readonly id: string; readonly number: number; readonly groupTag: string }, { readonly message: string }>
}>() {}
