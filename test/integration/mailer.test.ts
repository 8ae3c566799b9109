import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
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
