import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, Timestamp } from "../../../platform/Rows.js"
import { traced } from "../../../platform/Traced.js"
import { requireBuilder, requireReader } from "../../../schemas/Authorization.js"
import { DocumentTrigger, type DocumentTriggerRequest } from "../../../schemas/DocumentTrigger.js"
import { conflict, notFound } from "../../../schemas/Errors.js"
import type { DocumentTriggerId, WorkflowId } from "../../../schemas/Ids.js"
import type { Principal } from "../../../schemas/Principal.js"
import { KnowledgeDocuments } from "../../ports/KnowledgeDocuments.js"
import { WorkflowsRepo } from "../WorkflowsRepo.js"
import { overlaps } from "./Bindings.js"

export const BindingRow = Schema.Struct({
  ...DocumentTrigger.fields,
  tenant_id: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp
})
export type BindingRow = typeof BindingRow.Type
export const bindingRows = decodeRows("document_triggers", BindingRow)

const toTrigger = ({ tenant_id: _, ...row }: BindingRow): DocumentTrigger => row

/** Document trigger bindings of an AI Employee: builders write them, readers list them. */
export class DocumentTriggers extends Effect.Service<DocumentTriggers>()("DocumentTriggers", {
  dependencies: [WorkflowsRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workflows = yield* WorkflowsRepo
    const knowledge = yield* KnowledgeDocuments

    const readable = (principal: Principal, id: WorkflowId) => Effect.zipRight(requireReader(principal), workflows.visible(principal, id))
    const writable = (principal: Principal, id: WorkflowId) => Effect.zipRight(requireBuilder(principal), workflows.visible(principal, id))

    const one = (principal: Principal, workflowId: WorkflowId, id: DocumentTriggerId) =>
      sql`SELECT * FROM document_triggers WHERE tenant_id = ${principal.tenantId} AND workflow_id = ${workflowId} AND id = ${id}`.pipe(
        bindingRows,
        Effect.orDie,
        Effect.flatMap((rows) =>
          Option.match(Option.fromNullable(rows[0]), { onNone: () => Effect.fail(notFound("Document trigger")), onSome: Effect.succeed })
        )
      )

    /** Checks the knowledge base and overlap, under a lock on the AI Employee's bindings so that two writes cannot both pass. */
    const checked = (principal: Principal, workflowId: WorkflowId, body: typeof DocumentTriggerRequest.Type, except: string | undefined) =>
      Effect.gen(function*() {
        if (!(yield* knowledge.knowledgeBaseExists(principal.tenantId, body.knowledge_base_id))) return yield* notFound("Knowledge base")
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`document_triggers:${workflowId}`}))`.pipe(Effect.orDie)
        const others = yield* sql`SELECT * FROM document_triggers WHERE tenant_id = ${principal.tenantId} AND workflow_id = ${workflowId}`.pipe(
          bindingRows,
          Effect.orDie
        )
        const clash = others.find((o) => o.id !== except && overlaps(o, body))
        if (clash !== undefined) {
          return yield* conflict("DOCUMENT_TRIGGER_OVERLAP", `Document trigger ${clash.id} already watches an overlapping part of this knowledge base`)
        }
      })

    const create = (principal: Principal, workflowId: WorkflowId, body: typeof DocumentTriggerRequest.Type) =>
      writable(principal, workflowId).pipe(
        Effect.zipRight(
          sql.withTransaction(Effect.gen(function*() {
            yield* checked(principal, workflowId, body, undefined)
            const [row] = yield* sql`INSERT INTO document_triggers ${
              sql.insert({
                id: randomUUID(),
                tenant_id: principal.tenantId,
                workflow_id: workflowId,
                knowledge_base_id: body.knowledge_base_id,
                folder_prefix: body.folder_prefix.trim(),
                mime_type_allowlist: [...body.mime_type_allowlist],
                fire_on: body.fire_on,
                enabled: body.enabled,
                created_by: principal.userId
              })
            } RETURNING *`.pipe(bindingRows, Effect.orDie)
            return toTrigger(row)
          })).pipe(Effect.catchTag("SqlError", Effect.die))
        )
      )

    const replace = (principal: Principal, workflowId: WorkflowId, id: DocumentTriggerId, body: typeof DocumentTriggerRequest.Type) =>
      writable(principal, workflowId).pipe(
        Effect.zipRight(one(principal, workflowId, id)),
        Effect.zipRight(
          sql.withTransaction(Effect.gen(function*() {
            yield* checked(principal, workflowId, body, id)
            const [row] = yield* sql`UPDATE document_triggers SET knowledge_base_id = ${body.knowledge_base_id},
            folder_prefix = ${body.folder_prefix.trim()}, mime_type_allowlist = ${[...body.mime_type_allowlist]}::text[],
            fire_on = ${body.fire_on}, enabled = ${body.enabled}, last_error = NULL, updated_at = now()
            WHERE id = ${id} RETURNING *`.pipe(bindingRows, Effect.orDie)
            return toTrigger(row)
          })).pipe(Effect.catchTag("SqlError", Effect.die))
        )
      )

    const setEnabled = (principal: Principal, workflowId: WorkflowId, id: DocumentTriggerId, enabled: boolean) =>
      writable(principal, workflowId).pipe(
        Effect.zipRight(one(principal, workflowId, id)),
        Effect.zipRight(sql`UPDATE document_triggers SET enabled = ${enabled}, updated_at = now() WHERE id = ${id} RETURNING *`.pipe(
          bindingRows,
          Effect.orDie
        )),
        Effect.map((rows) => toTrigger(rows[0]))
      )

    return traced("DocumentTriggers", {
      create,
      replace,
      list: (principal: Principal, workflowId: WorkflowId) =>
        readable(principal, workflowId).pipe(
          Effect.zipRight(sql`SELECT * FROM document_triggers WHERE tenant_id = ${principal.tenantId} AND workflow_id = ${workflowId}
            ORDER BY created_at, id`.pipe(bindingRows, Effect.orDie)),
          Effect.map((rows) => ({ items: rows.map(toTrigger) }))
        ),
      get: (principal: Principal, workflowId: WorkflowId, id: DocumentTriggerId) =>
        readable(principal, workflowId).pipe(Effect.zipRight(one(principal, workflowId, id)), Effect.map(toTrigger)),
      remove: (principal: Principal, workflowId: WorkflowId, id: DocumentTriggerId) =>
        writable(principal, workflowId).pipe(
          Effect.zipRight(one(principal, workflowId, id)),
          Effect.zipRight(sql`DELETE FROM document_triggers WHERE id = ${id}`.pipe(Effect.orDie)),
          Effect.asVoid
        ),
      enable: (principal: Principal, workflowId: WorkflowId, id: DocumentTriggerId) => setEnabled(principal, workflowId, id, true),
      disable: (principal: Principal, workflowId: WorkflowId, id: DocumentTriggerId) => setEnabled(principal, workflowId, id, false)
    })
  })
}) {}
