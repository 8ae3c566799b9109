import { SqlClient } from "@effect/sql"
import { Effect, Either, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { isIP } from "node:net"
import { AppConfig } from "../../../platform/Config.js"
import { derivedUuid } from "../../../platform/DerivedId.js"
import { decodeRows, JsonObject, Timestamp } from "../../../platform/Rows.js"
import { traced } from "../../../platform/Traced.js"
import { WorkerPool, workerTask } from "../../../platform/workers/WorkerPool.js"
import { RunModule } from "../../../runtime/run/RunModule.js"
import { requireBuilder, requireReader } from "../../../schemas/Authorization.js"
import { conflict, notFound } from "../../../schemas/Errors.js"
import type { WorkflowId } from "../../../schemas/Ids.js"
import type { Principal } from "../../../schemas/Principal.js"
import { WorkflowsRepo } from "../WorkflowsRepo.js"
import type * as MailTask from "./MailTask.js"
import type { StoredMail } from "./MailTask.js"

const mailTask = workerTask<typeof MailTask, "readMail">(new URL("./MailTask.js", import.meta.url), "readMail")

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const EmailRow = Schema.Struct({
  id: Schema.UUID,
  workflow_id: Schema.String,
  message_id: Schema.String,
  run_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  subject: Schema.String,
  sender: Schema.String,
  recipients: Schema.Struct({ to: Schema.Array(Schema.String), cc: Schema.Array(Schema.String) }),
  conversation_id: Schema.String,
  received_at: Timestamp,
  headers: JsonObject,
  text_body: Schema.NullOr(Schema.String),
  html_body: Schema.NullOr(Schema.String),
  size_bytes: Schema.Number
})
const emailRows = decodeRows("inbound_emails", EmailRow)
const AttachmentRow = Schema.Struct({
  filename: Schema.String,
  content_type: Schema.String,
  size_bytes: Schema.Number,
  inline: Schema.Boolean,
  checksum: Schema.String
})
const attachmentRows = decodeRows("inbound_email_attachments", AttachmentRow)

/** The run a message starts for an AI Employee: fixed by its Message-ID, so a redelivery finds it. */
const messageRunId = (workflowId: string, messageId: string) => derivedUuid(`email:${workflowId}:${messageId}`)

export interface Recipient {
  readonly tenantId: string
  readonly workflowId: string
}

/**
 * Inbound email: builders give an AI Employee its address; the SMTP listener asks `recipient`
 * whether an address takes mail and hands each accepted message to `receive`, which stores it
 * and creates its runs in one transaction before the listener answers 250.
 */
export class InboundEmail extends Effect.Service<InboundEmail>()("InboundEmail", {
  dependencies: [WorkflowsRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workers = yield* WorkerPool
    const workflows = yield* WorkflowsRepo
    const modules = yield* RunModule
    const config = yield* AppConfig
    // An address needs a name for its domain: a base URL on a bare IP gives `localhost`.
    const baseHost = new URL(config.publicBaseUrl).hostname
    const domain = Option.getOrElse(config.inboundEmailDomain, () => (isIP(baseHost.replace(/^\[|\]$/g, "")) === 0 ? baseHost : "localhost")).toLowerCase()

    const settingsOf = (workflowId: string, enabled: boolean) => ({
      workflow_id: workflowId as WorkflowId,
      enabled,
      address: `${workflowId}@${domain}`
    })

    const settings = (principal: Principal, id: WorkflowId, enabled: boolean) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const row = yield* workflows.visible(principal, id)
        if (enabled && row.active_version === null) {
          return yield* conflict("NOT_PUBLISHED", "Mail starts runs of the published version: publish the AI Employee first")
        }
        yield* sql`INSERT INTO workflow_email ${sql.insert({ workflow_id: id, tenant_id: principal.tenantId, enabled })}
          ON CONFLICT (workflow_id) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`.pipe(Effect.orDie)
        return settingsOf(id, enabled)
      })

    const getSettings = (principal: Principal, id: WorkflowId) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        yield* workflows.visible(principal, id)
        const [row] = yield* sql`SELECT enabled FROM workflow_email WHERE workflow_id = ${id}`.pipe(
          decodeRows("workflow_email", Schema.Struct({ enabled: Schema.Boolean }))
        ).pipe(Effect.orDie)
        return settingsOf(id, row?.enabled ?? false)
      })

    const message = (principal: Principal, id: WorkflowId, messageId: string) =>
      Effect.gen(function*() {
        yield* requireReader(principal)
        yield* workflows.visible(principal, id)
        const [row] = yield* sql`SELECT * FROM inbound_emails WHERE tenant_id = ${principal.tenantId} AND workflow_id = ${id}
          AND id = ${messageId}`.pipe(emailRows, Effect.orDie)
        if (row === undefined) return yield* notFound("Message")
        const attachments = yield* sql`SELECT filename, content_type, size_bytes, inline, checksum FROM inbound_email_attachments
          WHERE email_id = ${row.id} ORDER BY position`.pipe(attachmentRows, Effect.orDie)
        const { text_body, html_body, ...rest } = row
        return {
          ...rest,
          workflow_id: rest.workflow_id as WorkflowId,
          body: { text: text_body, html: html_body },
          attachments: attachments.map((a) => ({ name: a.filename, content_type: a.content_type, size: a.size_bytes, inline: a.inline, checksum: a.checksum }))
        }
      })

    /** The AI Employee an address belongs to, when it takes mail now. */
    const recipient = (address: string) =>
      Effect.gen(function*() {
        const at = address.lastIndexOf("@")
        const local = address.slice(0, at)
        if (at < 0 || address.slice(at + 1).toLowerCase() !== domain || !UUID.test(local)) return Option.none<Recipient>()
        const [row] = yield* sql`SELECT e.tenant_id FROM workflow_email e JOIN workflows w ON w.id = e.workflow_id
          WHERE e.workflow_id = ${local.toLowerCase()} AND e.enabled AND w.archived_at IS NULL`.pipe(
          decodeRows("workflow_email", Schema.Struct({ tenant_id: Schema.String }))
        ).pipe(Effect.orDie)
        return row === undefined ? Option.none<Recipient>() : Option.some({ tenantId: row.tenant_id, workflowId: local.toLowerCase() })
      })

    /** What a later run of the same message is given: the outcome an earlier run recorded. */
    const outcomeRef = (tenantId: string, messageId: string) =>
      sql`SELECT r.named_outputs->'outcome_ref' AS outcome_ref FROM inbound_emails e
        JOIN runs r ON r.id = e.run_id
        WHERE e.tenant_id = ${tenantId} AND e.message_id = ${messageId} AND r.named_outputs ? 'outcome_ref'
        ORDER BY r.finished_at DESC NULLS LAST LIMIT 1`.pipe(decodeRows("inbound_emails", Schema.Struct({ outcome_ref: Schema.Unknown }))).pipe(
        Effect.map((rows) => rows[0]?.outcome_ref ?? {})
      )

    const storeFor = (to: Recipient, mail: StoredMail, size: number, receivedAt: Date) =>
      Effect.gen(function*() {
        const id = randomUUID()
        const inserted = yield* sql`INSERT INTO inbound_emails ${
          sql.insert({
            id,
            tenant_id: to.tenantId,
            workflow_id: to.workflowId,
            message_id: mail.messageId,
            subject: mail.subject,
            sender: mail.sender,
            recipients: JSON.stringify(mail.recipients),
            conversation_id: mail.conversationId,
            headers: JSON.stringify(mail.headers),
            text_body: mail.text,
            html_body: mail.html,
            size_bytes: size,
            received_at: receivedAt
          })
        } ON CONFLICT (workflow_id, message_id) DO NOTHING RETURNING id`
        if (inserted.length === 0) return Option.none<string>()
        for (const a of mail.attachments) {
          yield* sql`INSERT INTO inbound_email_attachments ${sql.insert({ email_id: id, ...a, content: Buffer.from(a.content) })}`
        }
        const created = yield* modules.create({
          id: messageRunId(to.workflowId, mail.messageId),
          tenantId: to.tenantId,
          workflowId: to.workflowId,
          triggerType: "email",
          createdBy: null,
          apiKeyId: null,
          isDryRun: false,
          input: {
            message_ref: { id, message_id: mail.messageId },
            subject: mail.subject,
            sender: mail.sender,
            recipients: mail.recipients,
            received_at: receivedAt.toISOString(),
            conversation_id: mail.conversationId,
            attachments: mail.attachments.map((a) => ({ name: a.filename, content_type: a.content_type, size: a.size_bytes, inline: a.inline })),
            outcome_ref: yield* outcomeRef(to.tenantId, mail.messageId)
          }
        }).pipe(Effect.either)
        if (Either.isLeft(created)) {
          yield* sql`UPDATE inbound_emails SET error = ${created.left.message} WHERE id = ${id}`
          return Option.none<string>()
        }
        yield* sql`UPDATE inbound_emails SET run_id = ${created.right.id} WHERE id = ${id}`
        return Option.some(created.right.id)
      })

    /**
     * Stores a message for each AI Employee it is addressed to and creates its run there, in one
     * transaction; runs are handed to the kernel after the commit. A Message-ID an AI Employee
     * already has starts nothing. Fails (the listener answers 451, the sender retries) when the
     * message cannot be read or stored.
     */
    const receive = (raw: Buffer, recipients: ReadonlyArray<Recipient>) =>
      Effect.gen(function*() {
        // Parsed on the worker pool, in the share of the first recipient's workspace.
        const mail = yield* workers.run(mailTask, { raw }, { tenantId: recipients[0]?.tenantId ?? "inbound-email" })
        const receivedAt = new Date()
        const runs = yield* sql.withTransaction(
          Effect.forEach(recipients, (to) => storeFor(to, mail, raw.byteLength, receivedAt))
        )
        const started = runs.flatMap(Option.toArray)
        yield* Effect.forEach(started, modules.launch, { discard: true })
        return started
      })

    return traced("InboundEmail", { domain, settings, getSettings, message, recipient, receive })
  })
}) {}
