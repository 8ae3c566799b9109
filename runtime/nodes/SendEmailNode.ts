import { Effect } from "effect"
import { Mailer } from "../../platform/Mailer.js"
import type { SendEmailNode as SendEmailNodeSchema } from "../../schemas/Dag.js"
import { renderDeep } from "../dag/Render.js"
import { MailIntegrations } from "./MailIntegrations.js"
import { defineNode, done, NodeFailure } from "./NodeType.js"

type SendEmailNode = typeof SendEmailNodeSchema.Type

const list = (u: unknown): ReadonlyArray<string> => (Array.isArray(u) ? u : [u]).map((a) => String(a ?? "").trim()).filter((a) => a !== "")

/**
 * send_email: renders its fields against the run (`{{...}}` templates) and mails them through
 * the platform's SMTP (`SMTP_URL`; without it the message is kept in the outbox). The outbox id
 * is the step's, so a node that runs again after a crash does not mail twice. A dry run sends
 * nothing. With `integration_id` the message goes through that mail integration of the workspace
 * (its SMTP server and sender).
 */
export const SendEmailNode = defineNode(
  "send_email",
  Effect.map(Effect.all([Mailer, MailIntegrations]), ([mailer, integrations]) => ({
    execute: (execution) =>
      Effect.gen(function*() {
        const config = (execution.node as SendEmailNode).send_email_config
        const rendered = renderDeep(config, execution.context) as typeof config
        const to = list(rendered.to)
        const cc = list(rendered.cc ?? [])
        if (to.length === 0) return yield* new NodeFailure({ kind: "configuration", message: "send_email has no recipient after rendering 'to'" })
        const subject = String(rendered.subject ?? "")
        const text = rendered.body_text ?? String(rendered.body_html ?? "").replace(/<[^>]*>/g, "")
        const summary = { to, ...(cc.length > 0 ? { cc } : {}), subject }
        if (execution.isDryRun) return done({ output: { ...summary, status: "dry_run" }, usage: {} })
        if (config.integration_id !== undefined) {
          const viaIntegration = yield* integrations.send(execution.tenantId, config.integration_id, {
            id: execution.stepId,
            to: to.join(", "),
            ...(cc.length > 0 ? { cc: cc.join(", ") } : {}),
            subject,
            text,
            ...(rendered.body_html !== undefined ? { html: rendered.body_html } : {})
          }).pipe(Effect.mapError((e) => new NodeFailure({ kind: "dependency", message: e.message })))
          return done({
            output: { ...summary, status: "sent", message_id: viaIntegration.id, from: viaIntegration.from, integration_id: config.integration_id },
            usage: {}
          })
        }
        const sent = yield* mailer.send({
          id: execution.stepId,
          to: to.join(", "),
          ...(cc.length > 0 ? { cc: cc.join(", ") } : {}),
          subject,
          text,
          ...(rendered.body_html !== undefined ? { html: rendered.body_html } : {})
        })
        if (sent.status === "failed") {
          return yield* new NodeFailure({ kind: "dependency", message: "The mail server refused the message; it stays in the outbox" })
        }
        return done({ output: { ...summary, status: sent.status, message_id: sent.id }, usage: {} })
      })
  }))
)
