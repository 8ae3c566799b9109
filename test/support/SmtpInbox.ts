import { Context, Effect, Layer } from "effect"
import { SMTPServer } from "smtp-server"
import { freePort } from "../../platform/FreePort.js"

export interface ReceivedMail {
  readonly to: ReadonlyArray<string>
  readonly raw: string
}

/** A real SMTP server on loopback that keeps what it receives. */
export class SmtpInbox extends Context.Tag("SmtpInbox")<SmtpInbox, {
  readonly port: number
  readonly messages: Array<ReceivedMail>
}>() {
  static readonly layer = Layer.scoped(
    SmtpInbox,
    Effect.gen(function*() {
      const port = yield* freePort
      const messages: Array<ReceivedMail> = []
      const server = new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS", "AUTH"],
        logger: false,
        onData(stream, session, callback) {
          const chunks: Array<Buffer> = []
          stream.on("data", (c: Buffer) => chunks.push(c))
          stream.on("end", () => {
            messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString("utf8") })
            callback()
          })
        }
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(port, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      return { port, messages }
    })
  )
}

export const lastCodeFor = (inbox: { readonly messages: ReadonlyArray<ReceivedMail> }, email: string) => {
  const mail = [...inbox.messages].reverse().find((m) => m.to.includes(email))
  return mail === undefined ? undefined : /code is (\d{6})/.exec(mail.raw)?.[1]
}

/** The sign-in code last mailed to `email`, waited for (up to 5 s). */
export const mailedCode = (email: string) =>
  Effect.gen(function*() {
    const inbox = yield* SmtpInbox
    for (let i = 0; i < 100; i++) {
      const code = lastCodeFor(inbox, email)
      if (code !== undefined) return code
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.dieMessage(`no code mailed to ${email}`)
  })
