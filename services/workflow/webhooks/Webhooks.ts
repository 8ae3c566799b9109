import type { HttpServerRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto"
import { AppConfig } from "../../../platform/Config.js"
import { CredentialsCipher } from "../../../platform/CredentialsCipher.js"
import { derivedUuid } from "../../../platform/DerivedId.js"
import { Idempotency } from "../../../platform/Idempotency.js"
import { RateLimiter } from "../../../platform/RateLimiter.js"
import { CurrentClientAddress } from "../../../platform/RequestContext.js"
import { decodeRows, Timestamp } from "../../../platform/Rows.js"
import { traced } from "../../../platform/Traced.js"
import { createdHere, RunModule } from "../../../runtime/run/RunModule.js"
import { requireBuilder } from "../../../schemas/Authorization.js"
import { badRequest, notFound, PayloadTooLarge, TooManyRequests, Unauthorized, UnsupportedMediaType } from "../../../schemas/Errors.js"
import { TenantId, WebhookId, WorkflowId } from "../../../schemas/Ids.js"
import type { Principal } from "../../../schemas/Principal.js"
import { isRecord } from "../../../schemas/Records.js"
import { WebhookAccepted } from "../../../schemas/Webhook.js"
import { RunStartRate } from "../RunStartRate.js"
import { WorkflowsRepo } from "../WorkflowsRepo.js"

export const MAX_DELIVERY_BYTES = 1024 * 1024
/** Deliveries with a wrong signature one client address may send a minute (apart from every webhook's quota). */
export const BAD_SIGNATURES_PER_MINUTE = 30

const Row = Schema.Struct({
  id: WebhookId,
  tenant_id: TenantId,
  workflow_id: WorkflowId,
  secret_enc: Schema.String,
  created_at: Timestamp
})
type Row = typeof Row.Type
const webhookRows = decodeRows("webhooks", Row)

const aad = (tenantId: string, id: string) => `webhook:${tenantId}:${id}`

/** The run a delivery starts: fixed by the webhook and the sender's X-Webhook-Id, so a redelivery finds it. */
const deliveryRunId = (webhookId: string, deliveryId: string) => derivedUuid(`webhook:${webhookId}:${deliveryId}`)

const signatureMatches = (secret: string, body: Uint8Array, header: string | undefined) => {
  const given = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? "")?.[1]
  if (given === undefined) return false
  const expected = createHmac("sha256", secret).update(body).digest()
  return timingSafeEqual(expected, Buffer.from(given, "hex"))
}

/**
 * Inbound webhooks: builders create them (the secret is shown once, kept sealed under
 * CREDENTIALS_KEY because every delivery is checked against it); anyone with the secret
 * delivers JSON to the url, and each delivery starts one run (one per X-Webhook-Id).
 */
export class Webhooks extends Effect.Service<Webhooks>()("Webhooks", {
  dependencies: [WorkflowsRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workflows = yield* WorkflowsRepo
    const cipher = yield* CredentialsCipher
    const limiter = yield* RateLimiter
    const startRate = yield* RunStartRate
    const modules = yield* RunModule
    const idempotency = yield* Idempotency
    const config = yield* AppConfig

    const view = (r: Row) => ({
      id: r.id,
      workflow_id: r.workflow_id,
      url: `${config.publicBaseUrl}/api/v1/workflow/webhooks/${r.id}`,
      created_at: r.created_at
    })

    const create = (principal: Principal, workflowId: WorkflowId) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* workflows.visible(principal, workflowId)
        const id = randomUUID()
        const secret = `whsec_${randomBytes(32).toString("hex")}`
        const sealed = yield* cipher.encrypt(secret, aad(principal.tenantId, id))
        const [row] = yield* sql`INSERT INTO webhooks ${
          sql.insert({ id, tenant_id: principal.tenantId, workflow_id: workflowId, secret_enc: sealed, created_by: principal.userId })
        } RETURNING *`.pipe(webhookRows, Effect.orDie)
        return { ...view(row), secret }
      })

    const list = (principal: Principal, workflowId: WorkflowId) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        yield* workflows.visible(principal, workflowId)
        const rows = yield* sql`SELECT * FROM webhooks WHERE tenant_id = ${principal.tenantId} AND workflow_id = ${workflowId}
          AND deleted_at IS NULL ORDER BY created_at, id`.pipe(webhookRows, Effect.orDie)
        return { items: rows.map(view) }
      })

    const remove = (principal: Principal, workflowId: WorkflowId, id: WebhookId) =>
      Effect.gen(function*() {
        yield* requireBuilder(principal)
        const rows = yield* sql`UPDATE webhooks SET deleted_at = now() WHERE tenant_id = ${principal.tenantId}
          AND workflow_id = ${workflowId} AND id = ${id} AND deleted_at IS NULL RETURNING id`.pipe(Effect.orDie)
        if (rows.length === 0) return yield* notFound("Webhook")
      })

    const deliver = (
      id: WebhookId,
      headers: { readonly signature: string | undefined; readonly deliveryId: string | undefined },
      request: HttpServerRequest.HttpServerRequest
    ) =>
      Effect.gen(function*() {
        const contentType = (request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase()
        if (contentType !== "application/json") {
          return yield* new UnsupportedMediaType({ code: "UNSUPPORTED_MEDIA_TYPE", message: "Webhook deliveries are application/json" })
        }
        const tooLarge = new PayloadTooLarge({ code: "WEBHOOK_BODY_TOO_LARGE", message: "Webhook deliveries are limited to 1 MiB" })
        if (Number(request.headers["content-length"] ?? 0) > MAX_DELIVERY_BYTES) return yield* tooLarge
        const [row] = yield* sql`SELECT * FROM webhooks WHERE id = ${id} AND deleted_at IS NULL`.pipe(webhookRows, Effect.orDie)
        if (row === undefined) return yield* notFound("Webhook")
        // The gateway has already read a JSON body as text (its depth check); the text is kept, the stream is not.
        const body = Buffer.from(yield* request.text.pipe(Effect.orDie), "utf8")
        if (body.byteLength > MAX_DELIVERY_BYTES) return yield* tooLarge
        // The signature first: a sender without the secret uses none of the webhook's quota; its
        // failures are limited per client address instead.
        const secret = yield* cipher.decrypt(row.secret_enc, aad(row.tenant_id, row.id)).pipe(Effect.orDie)
        if (!signatureMatches(secret, body, headers.signature)) {
          const address = (yield* CurrentClientAddress) ?? "unknown"
          const refusals = yield* limiter.hit(`webhook-bad-signature:${address}`, BAD_SIGNATURES_PER_MINUTE, 60)
          if (!refusals.allowed) {
            return yield* new TooManyRequests({
              code: "RATE_LIMITED",
              message: "Too many deliveries with a wrong signature from this address; retry later",
              retry_after_seconds: refusals.retryAfterSeconds
            })
          }
          return yield* new Unauthorized({ code: "INVALID_SIGNATURE", message: "X-Signature-256 is not the HMAC-SHA256 of this body" })
        }
        const decision = yield* limiter.hit(`webhook:${id}`, config.webhookDeliveriesPerMinute, 60)
        if (!decision.allowed) {
          return yield* new TooManyRequests({
            code: "RATE_LIMITED",
            message: "Too many deliveries to this webhook; retry later",
            retry_after_seconds: decision.retryAfterSeconds
          })
        }
        yield* startRate.checkTenant(row.tenant_id)
        const input = yield* Effect.try(() => JSON.parse(body.toString("utf8")) as unknown).pipe(
          Effect.orElseSucceed(() => undefined)
        )
        if (!isRecord(input)) return yield* badRequest("INVALID_BODY", "A webhook delivery is a JSON object")
        const deliveryId = headers.deliveryId !== undefined && headers.deliveryId !== "" ? headers.deliveryId : undefined
        const created = createdHere()
        // A redelivery (same X-Webhook-Id) replays the first answer; the run and that record commit together.
        const accepted = yield* idempotency.run({
          principal: { tenantId: row.tenant_id, userId: `webhook:${id}` },
          key: Option.fromNullable(deliveryId),
          operation: "webhook-delivery",
          request: input,
          response: WebhookAccepted,
          effect: created.keep(modules.create({
            tenantId: row.tenant_id,
            workflowId: row.workflow_id,
            triggerType: "webhook",
            createdBy: null,
            apiKeyId: null,
            isDryRun: false,
            input,
            ...(deliveryId !== undefined ? { id: deliveryRunId(id, deliveryId) } : {})
          })).pipe(Effect.map((run) => ({ run_id: run.id, status: run.status })))
        })
        yield* created.launch(modules, accepted.run_id)
        return accepted
      })

    return traced("Webhooks", { create, list, remove, deliver })
  })
}) {}
