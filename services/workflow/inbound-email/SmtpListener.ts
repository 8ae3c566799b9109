import { Effect, Layer, Option, Runtime } from "effect"
import { AppConfig } from "../../../platform/Config.js"
import { StartupError } from "../../../platform/StartupError.js"
import { InboundEmail, type Recipient } from "./InboundEmail.js"

/** An SMTP reply: smtp-server sends `responseCode` and the message to the client. */
const reply = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode })

/**
 * The inbound SMTP listener (smtp-server), on `INBOUND_SMTP_PORT` when it is set. RCPT is
 * refused (550) for every address that is not an enabled AI Employee's; a message over
 * `INBOUND_EMAIL_MAX_BYTES` is refused (552); an accepted message is stored and its runs created
 * before the 250, so a 250 never loses mail. Plain SMTP, no AUTH: put a relay with TLS in front.
 */
export const SmtpListenerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isNone(config.inboundSmtpPort)) return
    const port = config.inboundSmtpPort.value
    const inbound = yield* InboundEmail
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    // Loaded only where inbound mail is configured (about 0.08 s of a start's CPU).
    const { SMTPServer } = yield* Effect.promise(() => import("smtp-server"))

    const server = new SMTPServer({
      name: inbound.domain,
      banner: "Builder Platform inbound mail",
      size: config.inboundEmailMaxBytes,
      authOptional: true,
      disabledCommands: ["AUTH", "STARTTLS"],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        runFork(
          inbound.recipient(address.address).pipe(
            Effect.matchCause({
              onFailure: () => callback(reply(451, "Temporary failure; try again later")),
              onSuccess: (found) => callback(Option.isSome(found) ? null : reply(550, `No mailbox here for ${address.address}`))
            })
          )
        )
      },
      onData: (stream, session, callback) => {
        // Past the limit the rest of the message is read off the connection and dropped, never kept.
        const chunks: Array<Buffer> = []
        let size = 0
        stream.on("data", (chunk: Buffer) => {
          size += chunk.byteLength
          if (size <= config.inboundEmailMaxBytes) chunks.push(chunk)
          else chunks.length = 0
        })
        stream.on("end", () => {
          if (stream.sizeExceeded || size > config.inboundEmailMaxBytes) {
            return callback(reply(552, `Message exceeds the limit of ${config.inboundEmailMaxBytes} bytes`))
          }
          const raw = Buffer.concat(chunks)
          runFork(
            Effect.gen(function*() {
              const recipients = new Map<string, Recipient>()
              for (const rcpt of session.envelope.rcptTo) {
                const found = yield* inbound.recipient(rcpt.address)
                if (Option.isSome(found)) recipients.set(found.value.workflowId, found.value)
              }
              return yield* inbound.receive(raw, [...recipients.values()])
            }).pipe(
              Effect.tapErrorCause((cause) => Effect.logWarning("An inbound message could not be stored; the sender will retry", cause)),
              Effect.matchCause({
                onFailure: () => callback(reply(451, "The message could not be stored; try again later")),
                onSuccess: () => callback(null, "Message accepted")
              })
            )
          )
        })
      }
    })
    server.on("error", (error) => runFork(Effect.logWarning(`Inbound SMTP: ${error.message}`)))

    yield* Effect.acquireRelease(
      Effect.async<void, Error>((resume) => {
        const net = server.listen(port, config.host, () => resume(Effect.void))
        net.once("error", (error) => resume(Effect.fail(error)))
      }).pipe(
        Effect.mapError((error) =>
          new StartupError({ message: `The inbound SMTP listener cannot listen on port ${port} (${error.message}): free it or change INBOUND_SMTP_PORT.` })
        )
      ),
      () => Effect.async<void>((resume) => server.close(() => resume(Effect.void)))
    )
    yield* Effect.logInfo(`Inbound SMTP listening on ${config.host}:${port} for *@${inbound.domain}`)
  })
)
