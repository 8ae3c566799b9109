import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "./Config.js"
import { isDeadlinePassed, withinDeadline } from "./outbound/Deadline.js"
import { decodeRows } from "./Rows.js"

export interface Mail {
  readonly to: string
  readonly cc?: string | undefined
  readonly subject: string
  readonly text: string
  readonly html?: string | undefined
  /**
   * Makes the send idempotent: a message with this id (a uuid) is written and sent once; a
   * second send with the same id answers what the first did (a node that runs again after a
   * crash does not mail twice once the first attempt reached the outbox as sent).
   */
  readonly id?: string | undefined
}

export type MailStatus = "sent" | "outbox" | "failed"

/**
 * Outbound mail (nodemailer over `SMTP_URL`). Every message is written to `mail_outbox` first,
 * so nothing is lost when SMTP is not configured or fails.
 */
export class Mailer extends Effect.Service<Mailer>()("Mailer", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    // nodemailer's own limits (2 min to connect, 10 min of a silent socket) would hold a sign-in's
    // code or an e-mail node that long on a server that stopped answering.
    const timeoutMs = config.smtpTimeoutSeconds * 1000
    // nodemailer is loaded only where SMTP is configured (about 0.07 s of a start's CPU).
    const transport = Option.isNone(config.smtpUrl) ? Option.none() : Option.some(
      (yield* Effect.promise(() => import("nodemailer"))).default.createTransport({
        url: Redacted.value(config.smtpUrl.value),
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs
      })
    )
    yield* Effect.addFinalizer(() => Effect.sync(() => Option.map(transport, (t) => t.close())))

    const send = (mail: Mail) =>
      Effect.gen(function*() {
        const id = mail.id ?? randomUUID()
        const inserted = yield* sql`INSERT INTO mail_outbox ${
          sql.insert({ id, to_address: mail.to, subject: mail.subject, body_text: mail.text, status: "pending" })
        } ON CONFLICT (id) DO NOTHING RETURNING id`
        if (inserted.length === 0) {
          const [earlier] = yield* sql`SELECT status FROM mail_outbox WHERE id = ${id}`.pipe(
            decodeRows("mail_outbox", Schema.Struct({ status: Schema.String }))
          )
          if (earlier?.status === "sent" || earlier?.status === "outbox") return { id, status: earlier.status }
        }
        if (Option.isNone(transport)) {
          yield* Effect.logInfo(`SMTP_URL is not set: mail to ${mail.to} kept in the outbox (${id})`)
          yield* sql`UPDATE mail_outbox SET status = 'outbox' WHERE id = ${id}`
          return { id, status: "outbox" }
        }
        const sent = yield* withinDeadline(timeoutMs, () =>
          transport.value.sendMail({
            from: config.smtpFrom,
            to: mail.to,
            ...(mail.cc !== undefined ? { cc: mail.cc } : {}),
            subject: mail.subject,
            text: mail.text,
            ...(mail.html !== undefined ? { html: mail.html } : {})
          })).pipe(Effect.either)
        if (sent._tag === "Right") {
          yield* sql`UPDATE mail_outbox SET status = 'sent', sent_at = now() WHERE id = ${id}`
          return { id, status: "sent" }
        }
        yield* Effect.logWarning(`Sending mail ${id} failed; it stays in the outbox`, sent.left)
        const why = isDeadlinePassed(sent.left)
          ? `the SMTP server did not answer within ${config.smtpTimeoutSeconds} s`
          : sent.left instanceof Error
          ? sent.left.message
          : String(sent.left)
        yield* sql`UPDATE mail_outbox SET status = 'failed', error = ${why} WHERE id = ${id}`
        return { id, status: "failed" }
      }).pipe(Effect.orDie, Effect.withSpan("Mailer.send"))

    return { send }
  })
}) {}
