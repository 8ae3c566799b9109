import { Effect } from "effect"
import { Mailer } from "../../platform/Mailer.js"
import { SendEmailNode as SendEmailNodeSchema } from "../../schemas/Dag.js"
import { renderDeep } from "../dag/Render.js"
import { MailIntegrations } from "./MailIntegrations.js"
import { defineNode, done } from "./NodeType.js"

const list = (u: unknown): ReadonlyArray<string> => (Array.isArray(u) ? u : [u]).map((a) => String(a ?? "").trim()).filter((a) => a !== "")

/**
 * send_email: renders its fields against the run (`{{...}}` templates) and mails them through
 * the platform's SMTP (`SMTP_URL`; without it the message is kept in the outbox). The outbox id
 * is the step's, so a node that runs again after a crash does not mail twice. A dry run sends
 * nothing. With `integration_id` the message goes through that mail integration of the workspace
 * (its SMTP server and sender).
 */
export const SendEmailNode = defineNode({
  type: "send_email",
  schema: SendEmailNodeSchema,
  failures: { NO_RECIPIENT: "configuration", INTEGRATION_FAILED: "dependency", MAIL_REFUSED: "dependency" },
  make: (fail) =>
    Effect.map(Effect.all([Mailer, MailIntegrations]), ([mailer, integrations]) => ({
      execute: (execution, node) =>
        Effect.gen(function*() {
          const config = node.send_email_config
          const rendered = renderDeep(config, execution.context) as typeof config
          const to = list(rendered.to)
          const cc = list(rendered.cc ?? [])
          if (to.length === 0) return yield* fail("NO_RECIPIENT", "send_email has no recipient after rendering 'to'")
          const subject = String(rendered.subject ?? "")
          const text = rendered.body_text ?? String(rendered.body_html ?? "").replace(/<[^>]*>/g, "")
          const summary = { to, ...(cc.length > 0 ? { cc } : {}), subject }
          if (execution.isDryRun) return done({ output: { ...summary, status: "dry_run" }, usage: {} })
          const message = {
            id: execution.stepId,
            to: to.join(", "),
            ...(cc.length > 0 ? { cc: cc.join(", ") } : {}),
            subject,
            text,
            ...(rendered.body_html !== undefined ? { html: rendered.body_html } : {})
          }
          if (config.integration_id !== undefined) {
            const viaIntegration = yield* integrations.send(execution.tenantId, config.integration_id, message).pipe(
              Effect.mapError((e) => fail("INTEGRATION_FAILED", e.message))
            )
            return done({
              output: { ...summary, status: "sent", message_id: viaIntegration.id, from: viaIntegration.from, integration_id: config.integration_id },
              usage: {}
            })
          }
          const sent = yield* mailer.send(message)
          if (sent.status === "failed") {
            return yield* fail("MAIL_REFUSED", "The mail server refused the message; it stays in the outbox")
          }
          return done({ output: { ...summary, status: sent.status, message_id: sent.id }, usage: {} })
        })
    }))
})
