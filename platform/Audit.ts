import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { AuditEvent } from "../schemas/Auth.js"
import type { PageParams } from "../schemas/Pagination.js"
import { pageOf, pageOffset } from "../schemas/Pagination.js"
import type { Principal } from "../schemas/Principal.js"
import { CurrentRequestId } from "./RequestContext.js"
import { decodeRows } from "./Rows.js"

const auditRows = decodeRows("audit_events", Schema.typeSchema(AuditEvent))

export interface AuditEntry {
  readonly action: string
  readonly resourceType: string
  readonly resourceId?: string | undefined
  readonly details?: Record<string, unknown> | undefined
  /** Defaults to the principal's tenant. */
  readonly tenantId?: string | undefined
}

/** The audit trail every service writes to and admins read. */
export class Audit extends Effect.Service<Audit>()("Audit", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const record = (principal: Principal | undefined, entry: AuditEntry) =>
      Effect.gen(function*() {
        const requestId = yield* CurrentRequestId
        const tenantId = entry.tenantId ?? principal?.tenantId
        if (tenantId === undefined) return
        yield* sql`INSERT INTO audit_events ${
          sql.insert({
            id: randomUUID(),
            tenant_id: tenantId,
            actor_user_id: principal?.userId ?? null,
            actor_api_key_id: principal?.apiKeyId ?? null,
            action: entry.action,
            resource_type: entry.resourceType,
            resource_id: entry.resourceId ?? null,
            details: JSON.stringify(entry.details ?? {}),
            request_id: requestId ?? null
          })
        }`
      }).pipe(Effect.orDie, Effect.withSpan("Audit.record", { attributes: { action: entry.action } }))

    const list = (principal: Principal, params: PageParams) =>
      Effect.gen(function*() {
        const rows = yield* sql`
          SELECT id, tenant_id, actor_user_id, actor_api_key_id, action, resource_type, resource_id,
                 details, request_id, created_at
          FROM audit_events WHERE tenant_id = ${principal.tenantId}
          ORDER BY created_at DESC, id DESC LIMIT ${params.page_size} OFFSET ${pageOffset(params)}`.pipe(auditRows)
        const [{ total }] = yield* sql`
          SELECT count(*)::int AS total FROM audit_events WHERE tenant_id = ${principal.tenantId}`.pipe(
          decodeRows("audit_events", Schema.Struct({ total: Schema.Number }))
        )
        return pageOf(params, rows, total)
      }).pipe(Effect.orDie, Effect.withSpan("Audit.list"))

    return { record, list }
  })
}) {}

export const AuditLive = Audit.Default satisfies Layer.Layer<Audit, never, SqlClient.SqlClient>
