import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import nodemailer from "nodemailer"
import { AppConfig } from "./Config.js"

export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
}

/**
 * Outbound mail (nodemailer over `SMTP_URL`). Every message is written to `mail_outbox` first,
 * so nothing is lost when SMTP is not configured or fails.
 */
export class Mailer extends Effect.Service<Mailer>()("Mailer", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const transport = Option.map(config.smtpUrl, (url) => nodemailer.createTransport(Redacted.value(url)))
    yield* Effect.addFinalizer(() => Effect.sync(() => Option.map(transport, (t) => t.close())))

    const send = (mail: Mail) =>
      Effect.gen(function*() {
        const id = randomUUID()
        yield* sql`INSERT INTO mail_outbox ${
          sql.insert({ id, to_address: mail.to, subject: mail.subject, body_text: mail.text, status: "pending" })
        }`
        if (Option.isNone(transport)) {
          yield* Effect.logInfo(`SMTP_URL is not set: mail to ${mail.to} kept in the outbox (${id})`)
          yield* sql`UPDATE mail_outbox SET status = 'outbox' WHERE id = ${id}`
          return
        }
        const sent = yield* Effect.tryPromise(() =>
          transport.value.sendMail({ from: config.smtpFrom, to: mail.to, subject: mail.subject, text: mail.text })
        ).pipe(Effect.either)
        if (sent._tag === "Right") {
          yield* sql`UPDATE mail_outbox SET status = 'sent', sent_at = now() WHERE id = ${id}`
        } else {
          yield* Effect.logWarning(`Sending mail ${id} failed; it stays in the outbox`, sent.left)
          yield* sql`UPDATE mail_outbox SET status = 'failed', error = ${String(sent.left.error)} WHERE id = ${id}`
        }
      }).pipe(Effect.orDie, Effect.withSpan("Mailer.send"))

    return { send }
  })
}) {}
