import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { createServer, type Socket } from "node:net"
import { freePort } from "../../platform/FreePort.js"
import { Mailer } from "../../platform/Mailer.js"
import { SmtpInbox } from "../support/SmtpInbox.js"
import { TestSqlLive } from "../support/TestSql.js"
import { configLayer } from "../support/UnitLayers.js"

const Live = Layer.unwrapEffect(
  Effect.map(
    SmtpInbox,
    (inbox) => Mailer.Default.pipe(Layer.provide(configLayer({ SMTP_URL: `smtp://127.0.0.1:${inbox.port}` })), Layer.provideMerge(TestSqlLive))
  )
).pipe(Layer.provideMerge(SmtpInbox.layer))

layer(Live, { excludeTestServices: true })("Mailer", (it) => {
  it.effect("a message sent twice with one id (a node run again after a crash) goes out once", () =>
    Effect.gen(function*() {
      const mailer = yield* Mailer
      const inbox = yield* SmtpInbox
      const sql = yield* SqlClient.SqlClient
      const id = randomUUID()
      const mail = { id, to: "once@example.test", subject: "Once", text: "Only once" }
      const first = yield* mailer.send(mail)
      const second = yield* mailer.send(mail)
      assert.deepStrictEqual([first.status, second.status], ["sent", "sent"])
      assert.strictEqual(inbox.messages.filter((m) => m.to.includes("once@example.test")).length, 1)
      const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM mail_outbox WHERE id = ${id}`
      assert.strictEqual(rows[0].n, 1)
    }))
})

/** An SMTP server that accepts connections and never says a word (a mail relay that stopped answering). */
const SilentSmtp = Layer.unwrapScoped(Effect.gen(function*() {
  const port = yield* freePort
  const sockets: Array<Socket> = []
  const server = createServer((socket) => void sockets.push(socket))
  yield* Effect.acquireRelease(
    Effect.async<void>((resume) => void server.listen(port, "127.0.0.1", () => resume(Effect.void))),
    () =>
      Effect.async<void>((resume) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resume(Effect.void))
      })
  )
  return Mailer.Default.pipe(
    Layer.provide(configLayer({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_SECONDS: "1" })),
    Layer.provideMerge(TestSqlLive)
  )
}))

layer(SilentSmtp, { excludeTestServices: true })("Mailer against a silent server", (it) => {
  it.effect("a send ends failed at SMTP_TIMEOUT_SECONDS (not nodemailer's 30 s to 10 min), the message kept in the outbox", () =>
    Effect.gen(function*() {
      const mailer = yield* Mailer
      const sql = yield* SqlClient.SqlClient
      const sent = yield* mailer.send({ to: "late@example.test", subject: "Code", text: "123456" })
      assert.strictEqual(sent.status, "failed")
      const [row] = yield* sql<{ status: string; error: string }>`SELECT status, error FROM mail_outbox WHERE id = ${sent.id}`
      assert.strictEqual(row.status, "failed")
      assert.match(row.error, /did not answer within 1 s|greeting|timeout/i)
    }), 10_000)
})
