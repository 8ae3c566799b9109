import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import * as net from "node:net"
import nodemailer from "nodemailer"
import { freePort } from "../../platform/FreePort.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { createWorkflow, respondNode } from "../support/Workflows.js"

const DOMAIN = "aie.example.test"
const MAX_BYTES = 64 * 1024

const PlatformLive = Layer.unwrapEffect(
  Effect.map(freePort, (port) => RunPlatformLive({ INBOUND_SMTP_PORT: String(port), INBOUND_EMAIL_DOMAIN: DOMAIN, INBOUND_EMAIL_MAX_BYTES: String(MAX_BYTES) }))
)

const dag = { nodes: [respondNode("read", "Mail from {{workflow_input.sender}}: {{workflow_input.subject}}")], edges: [] }

/** Delivers over a real SMTP connection; resolves with the server's answer or its refusal. */
const send = (message: nodemailer.SendMailOptions) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(() => {
      const transport = nodemailer.createTransport({ host: "127.0.0.1", port: Number(platform.env.INBOUND_SMTP_PORT), secure: false, ignoreTLS: true })
      return transport.sendMail(message).then(
        (info) => ({ ok: true as const, response: info.response, code: 250 }),
        (error: { responseCode?: number; response?: string }) => ({ ok: false as const, response: error.response ?? "", code: error.responseCode ?? 0 })
      ).finally(() => transport.close())
    }))

/**
 * A DATA of `bytes` over a raw SMTP connection, generated as it is sent (the client keeps none of
 * it): the server's final reply code, and the most this process's ArrayBuffers grew meanwhile.
 */
const sendHuge = (to: string, bytes: number) =>
  Effect.flatMap(TestPlatform, (platform) =>
    Effect.promise(() =>
      new Promise<{ code: number; grewBytes: number }>((resolve, reject) => {
        const base = process.memoryUsage().arrayBuffers
        let peak = base
        const sampler = setInterval(() => {
          peak = Math.max(peak, process.memoryUsage().arrayBuffers)
        }, 10)
        const socket = net.connect(Number(platform.env.INBOUND_SMTP_PORT), "127.0.0.1")
        const steps = ["EHLO client.test", "MAIL FROM:<alice@example.com>", `RCPT TO:<${to}>`, "DATA"]
        let buffered = ""
        const line = "x".repeat(998) + "\r\n"
        const pump = async () => {
          socket.write("Subject: huge\r\n\r\n")
          for (let sent = 0; sent < bytes; sent += line.length * 64) {
            if (!socket.write(line.repeat(64))) await new Promise((r) => socket.once("drain", r))
          }
          socket.write("\r\n.\r\n")
        }
        socket.on("data", (chunk: Buffer) => {
          buffered += chunk.toString()
          const replies = buffered.split("\r\n").filter((l) => /^\d{3} /.test(l))
          if (replies.length === 0) return
          buffered = ""
          const code = Number(replies.at(-1)!.slice(0, 3))
          if (code === 354) return void pump()
          const next = steps.shift()
          if (next !== undefined && code < 400) return void socket.write(`${next}\r\n`)
          clearInterval(sampler)
          socket.end("QUIT\r\n")
          resolve({ code, grewBytes: peak - base })
        })
        socket.on("error", reject)
      })
    ))

const emailRuns = (token: string, workflowId: string) =>
  http("GET", `/api/v1/workflow/workflows/${workflowId}/runs?trigger_type=email`, { token }).pipe(
    Effect.map((r) => r.body.items as ReadonlyArray<{ id: string }>)
  )

const ended = (token: string, runId: string) =>
  eventually(
    Effect.map(http("GET", `/api/v1/workflow/runs/${runId}`, { token }), (r) => ["completed", "failed"].includes(r.body.status) ? r.body : undefined),
    "the email run to end"
  )

layer(PlatformLive, { excludeTestServices: true, timeout: "60 seconds" })("inbound email", (it) => {
  it.effect("a message over SMTP, attachment included, is stored and starts one run per Message-ID with the documented input", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "read" }))
      const draft = yield* createWorkflow(admin)
      const refused = yield* http("PUT", `/api/v1/workflow/workflows/${draft.id}/email`, { token: admin, body: { enabled: true } })
      assert.strictEqual(refused.status, 409)
      assert.strictEqual(refused.body.code, "NOT_PUBLISHED")

      const id = yield* publishedWorkflow(admin, dag)
      assert.deepStrictEqual((yield* http("GET", `/api/v1/workflow/workflows/${id}/email`, { token: admin })).body, {
        workflow_id: id,
        enabled: false,
        address: `${id}@${DOMAIN}`
      })
      const on = yield* http("PUT", `/api/v1/workflow/workflows/${id}/email`, { token: admin, body: { enabled: true } })
      assert.strictEqual(on.status, 200, on.text)
      const address = on.body.address as string

      const message = {
        from: "Alice Example <alice@example.com>",
        to: address,
        cc: "bob@example.com",
        subject: "Invoice 7",
        text: "Please find the invoice attached.",
        html: "<p>Please find the <b>invoice</b> attached.</p>",
        messageId: "<invoice-7@example.com>",
        attachments: [{ filename: "invoice.csv", content: "item,amount\nwidgets,12\n", contentType: "text/csv" }]
      }
      const sent = yield* send(message)
      assert.isTrue(sent.ok, sent.response)
      const [first] = yield* eventually(Effect.map(emailRuns(admin, id), (runs) => runs.length > 0 ? runs : undefined), "the run")
      const run = yield* ended(admin, first.id)
      assert.strictEqual(run.status, "completed")
      assert.strictEqual(run.trigger_type, "email")
      const input = run.input_params
      assert.deepInclude(input, {
        subject: "Invoice 7",
        sender: "alice@example.com",
        recipients: { to: [address], cc: ["bob@example.com"] },
        conversation_id: "<invoice-7@example.com>",
        outcome_ref: {}
      })
      assert.deepStrictEqual(input.attachments, [{ name: "invoice.csv", content_type: "text/csv", size: 23, inline: false }])
      for (const absent of ["body", "from", "to", "cc"]) assert.notProperty(input, absent)
      assert.isString(input.received_at)
      assert.isTrue(model.requests.some((r) => r.messages[0]?.content === "Mail from alice@example.com: Invoice 7"))

      // The stored message: headers, text, html and the attachment's metadata.
      const stored = yield* http("GET", `/api/v1/workflow/workflows/${id}/email/messages/${input.message_ref.id}`, { token: admin })
      assert.strictEqual(stored.status, 200, stored.text)
      assert.strictEqual(stored.body.message_id, "<invoice-7@example.com>")
      assert.strictEqual(stored.body.run_id, run.id)
      assert.strictEqual(stored.body.body.text.trim(), "Please find the invoice attached.")
      assert.include(stored.body.body.html, "<b>invoice</b>")
      assert.deepInclude(stored.body.attachments[0], { name: "invoice.csv", content_type: "text/csv", size: 23, inline: false })
      assert.match(stored.body.attachments[0].checksum, /^[0-9a-f]{32}$/)
      assert.deepStrictEqual(stored.body.headers.subject, ["Invoice 7"])

      // The same Message-ID delivered again is accepted and starts nothing.
      assert.isTrue((yield* send(message)).ok)
      yield* Effect.sleep("700 millis")
      assert.strictEqual((yield* emailRuns(admin, id)).length, 1)
      // Another message in the same thread shares the conversation.
      assert.isTrue(
        (yield* send({
          ...message,
          messageId: "<re-invoice-7@example.com>",
          subject: "Re: Invoice 7",
          inReplyTo: "<invoice-7@example.com>",
          references: ["<invoice-7@example.com>"]
        })).ok
      )
      const runs = yield* eventually(Effect.map(emailRuns(admin, id), (r) => r.length === 2 ? r : undefined), "the reply's run")
      const reply = yield* ended(admin, runs.find((r) => r.id !== run.id)!.id)
      assert.strictEqual(reply.input_params.conversation_id, "<invoice-7@example.com>")
    }))

  it.effect("RCPT is refused (550) for unknown, foreign and disabled addresses; oversized mail is refused (552)", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const id = yield* publishedWorkflow(admin, dag)
      const base = { from: "alice@example.com", subject: "Hi", text: "Hello" }
      const unknown = yield* send({ ...base, to: `${randomUUID()}@${DOMAIN}` })
      assert.isFalse(unknown.ok)
      assert.strictEqual(unknown.code, 550)
      assert.strictEqual((yield* send({ ...base, to: `${id}@elsewhere.test` })).code, 550)
      assert.strictEqual((yield* send({ ...base, to: `${id}@${DOMAIN}` })).code, 550, "not enabled yet")
      yield* http("PUT", `/api/v1/workflow/workflows/${id}/email`, { token: admin, body: { enabled: true } })
      const big = yield* send({ ...base, to: `${id}@${DOMAIN}`, attachments: [{ filename: "big.bin", content: Buffer.alloc(MAX_BYTES * 2, 7) }] })
      assert.isFalse(big.ok)
      assert.strictEqual(big.code, 552)
      // 96 MiB over the limit: refused, and not kept while it streams in (it was, whole, before its 552).
      const huge = yield* sendHuge(`${id}@${DOMAIN}`, 96 * 1024 * 1024)
      assert.strictEqual(huge.code, 552)
      assert.isBelow(huge.grewBytes, 32 * 1024 * 1024)
      assert.isTrue((yield* send({ ...base, to: `${id}@${DOMAIN}` })).ok)
      yield* http("PUT", `/api/v1/workflow/workflows/${id}/email`, { token: admin, body: { enabled: false } })
      assert.strictEqual((yield* send({ ...base, to: `${id}@${DOMAIN}` })).code, 550)
      assert.strictEqual((yield* emailRuns(admin, id)).length, 1)
    }))

  it.effect("an outcome_ref recorded by one run is supplied to a later run of the same message", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "TICKET-42" }))
      const first = yield* publishedWorkflow(admin, { ...dag, outputs: [{ name: "outcome_ref", value: "{{nodes.read.output.text}}", exposed: true }] })
      const second = yield* publishedWorkflow(admin, dag)
      for (const id of [first, second]) yield* http("PUT", `/api/v1/workflow/workflows/${id}/email`, { token: admin, body: { enabled: true } })
      const message = { from: "carol@example.com", subject: "Broken printer", text: "It jams.", messageId: "<printer@example.com>" }
      assert.isTrue((yield* send({ ...message, to: `${first}@${DOMAIN}` })).ok)
      const [a] = yield* eventually(Effect.map(emailRuns(admin, first), (r) => r.length > 0 ? r : undefined), "the first run")
      assert.deepStrictEqual((yield* ended(admin, a.id)).named_outputs, { outcome_ref: "TICKET-42" })
      assert.isTrue((yield* send({ ...message, to: `${second}@${DOMAIN}` })).ok)
      const [b] = yield* eventually(Effect.map(emailRuns(admin, second), (r) => r.length > 0 ? r : undefined), "the later run")
      assert.strictEqual((yield* ended(admin, b.id)).input_params.outcome_ref, "TICKET-42")
    }))
})
