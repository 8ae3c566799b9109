import { Context, type Effect } from "effect"

export interface IntegrationMail {
  /** The step's id: a node run again after a crash does not mail twice. */
  readonly id: string
  readonly to: string
  readonly cc?: string | undefined
  readonly subject: string
  readonly text: string
  readonly html?: string | undefined
}

/** A workspace's own mail integration, as the send_email node sees it; the integrations service implements it. */
export class MailIntegrations extends Context.Tag("MailIntegrations")<MailIntegrations, {
  readonly send: (
    tenantId: string,
    integrationId: string,
    mail: IntegrationMail
  ) => Effect.Effect<{ readonly id: string; readonly from: string }, { readonly message: string }>
}>() {}
