import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { OutboundGuard } from "../../platform/outbound/OutboundGuard.js"
import { decodeRows } from "../../platform/Rows.js"
import { MailIntegrations } from "../../runtime/nodes/MailIntegrations.js"
import { InstallSecrets } from "./InstallSecrets.js"

const MAIL_CATEGORIES = ["email", "mail", "smtp"]

interface SmtpSettings {
  readonly host: string
  readonly port: number
  readonly secure: boolean
  readonly user: string | undefined
  readonly pass: string | undefined
  readonly from: string
}

const text = (u: unknown) => (typeof u === "string" && u !== "" ? u : undefined)

/** `{smtp_url}` or `{host, port?, secure?, username?, password?}`, with `from`. */
const settingsOf = (c: Record<string, unknown>): SmtpSettings | undefined => {
  const url = text(c.smtp_url) !== undefined && URL.canParse(String(c.smtp_url)) ? new URL(String(c.smtp_url)) : undefined
  const host = url?.hostname ?? text(c.host)
  if (host === undefined) return undefined
  const secure = url !== undefined ? url.protocol === "smtps:" : c.secure === true
  return {
    host: host.replace(/^\[|\]$/g, ""),
    port: Number(url?.port || c.port || (secure ? 465 : 587)),
    secure,
    user: url !== undefined && url.username !== "" ? decodeURIComponent(url.username) : text(c.username),
    pass: url !== undefined && url.password !== "" ? decodeURIComponent(url.password) : text(c.password),
    from: text(c.from) ?? `no-reply@${host}`
  }
}

/**
 * Mail through a workspace's own mail integration (an installed entry of category email): its
 * SMTP server, checked by the outbound guard, its sender address. A message is recorded by the
 * step's id before it is sent, so a node that runs again finds it sent.
 */
export const MailIntegrationsLive = Layer.effect(
  MailIntegrations,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* InstallSecrets
    const guard = yield* OutboundGuard

    return {
      send: (tenantId, integrationId, mail) =>
        Effect.gen(function*() {
          const [install] = yield* sql`SELECT e.category FROM tenant_integrations i JOIN catalog_entries e ON e.id = i.catalog_id
            WHERE i.tenant_id = ${tenantId} AND i.id = ${integrationId} AND i.status = 'active'`.pipe(
            decodeRows("tenant_integrations", Schema.Struct({ category: Schema.String }))
          ).pipe(Effect.orDie)
          if (install === undefined) return yield* Effect.fail({ message: `Integration ${integrationId} is not installed in this workspace` })
          if (!MAIL_CATEGORIES.includes(install.category.toLowerCase())) {
            return yield* Effect.fail({ message: `Integration ${integrationId} is not a mail integration (category ${install.category})` })
          }
          const stored = yield* secrets.credentials(tenantId, integrationId)
          const settings = Option.isNone(stored) ? undefined : settingsOf(stored.value)
          if (settings === undefined) {
            return yield* Effect.fail({ message: "The mail integration has no SMTP settings (smtp_url, or host and port) in its credentials" })
          }

          const [earlier] = yield* sql`SELECT status FROM integration_mail WHERE id = ${mail.id}`.pipe(
            decodeRows("integration_mail", Schema.Struct({ status: Schema.String }))
          ).pipe(Effect.orDie)
          if (earlier?.status === "sent") return { id: mail.id, from: settings.from }
          // The server's address must be one the guard allows (checked as the message goes out).
          yield* guard.checkUrl(`smtp://${settings.host.includes(":") ? `[${settings.host}]` : settings.host}:${settings.port}`).pipe(
            Effect.mapError((refused) => ({ message: `OUTBOUND_ADDRESS_REFUSED: ${refused.message}` }))
          )
          yield* sql`INSERT INTO integration_mail ${
            sql.insert({ id: mail.id, tenant_id: tenantId, integration_id: integrationId, to_address: mail.to, subject: mail.subject, status: "pending" })
          } ON CONFLICT (id) DO NOTHING`.pipe(Effect.orDie)
          // Loaded at the first message (not at every start of the platform).
          const { default: nodemailer } = yield* Effect.promise(() => import("nodemailer"))
          const transport = nodemailer.createTransport({
            host: settings.host,
            port: settings.port,
            secure: settings.secure,
            ...(settings.user !== undefined ? { auth: { user: settings.user, pass: settings.pass ?? "" } } : {}),
            connectionTimeout: 10_000,
            greetingTimeout: 10_000
          })
          const sent = yield* Effect.tryPromise(() =>
            transport.sendMail({
              from: settings.from,
              to: mail.to,
              ...(mail.cc !== undefined ? { cc: mail.cc } : {}),
              subject: mail.subject,
              text: mail.text,
              ...(mail.html !== undefined ? { html: mail.html } : {})
            })
          ).pipe(Effect.ensuring(Effect.sync(() => transport.close())), Effect.either)
          if (sent._tag === "Left") {
            yield* sql`UPDATE integration_mail SET status = 'failed', error = ${String(sent.left.error)} WHERE id = ${mail.id}`.pipe(Effect.orDie)
            return yield* Effect.fail({ message: `The mail server refused the message: ${String(sent.left.error)}` })
          }
          yield* sql`UPDATE integration_mail SET status = 'sent', message_id = ${sent.right.messageId ?? null} WHERE id = ${mail.id}`.pipe(Effect.orDie)
          return { id: mail.id, from: settings.from }
        }).pipe(Effect.withSpan("MailIntegrations.send"))
    }
  })
)
