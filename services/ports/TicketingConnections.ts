import { Context, type Effect } from "effect"

/** What a connected ticketing queue learns of its connection. */
export type ConnectionLookup =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "NotTicketing"; readonly category: string }
  | { readonly _tag: "Found"; readonly credentials: Record<string, unknown> }

/**
 * A ticketing connection (an installed integration of category `ticketing`) with its unsealed
 * credentials; the integrations service implements it. An uninstalled or disconnected one is Missing.
 */
export class TicketingConnections extends Context.Tag("ports/TicketingConnections")<TicketingConnections, {
  readonly lookup: (tenantId: string, connectionId: string) => Effect.Effect<ConnectionLookup>
}>() {}
