import { Context, type Effect, type Option } from "effect"

export interface CardContent {
  readonly title?: string | undefined
  readonly body?: string | undefined
  readonly actions?: ReadonlyArray<{ readonly label: string; readonly value: string }> | undefined
}

export interface CardSpec extends CardContent {
  readonly runId: string
  readonly tenantId: string
  readonly workflowId: string
  readonly nodeId: string
  readonly cardRef: string
  readonly mode: "park" | "collect" | "notify"
  /** Who sees the card; by default whoever started the run. */
  readonly recipient?: { readonly user_email: string } | { readonly role: string } | { readonly group_id: string } | undefined
  readonly triggerWorkflowId?: string | undefined
  readonly expiresAt?: Date | undefined
  readonly reminders?: { readonly every_seconds: number; readonly max?: number | undefined } | undefined
}

export interface Card {
  readonly id: string
  readonly status: "open" | "responded" | "closed" | "expired"
  readonly response?: { readonly value: unknown; readonly responded_by: string; readonly responded_at: string } | undefined
}

/**
 * Nudge cards as the notify_user node sees them; the workflow service implements it. A card is
 * one per run and `card_ref`: sending it again (a node run again after a crash) keeps its id and
 * the answer it may already have.
 */
export class NudgeCards extends Context.Tag("NudgeCards")<NudgeCards, {
  readonly send: (spec: CardSpec) => Effect.Effect<Card>
  readonly update: (runId: string, cardRef: string, content: CardContent) => Effect.Effect<Option.Option<Card>>
  readonly close: (runId: string, cardRef: string, status: "closed" | "expired") => Effect.Effect<Option.Option<Card>>
}>() {}
