import { SqlClient } from "@effect/sql"
import { Effect, Queue, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { keepRunning } from "../../platform/Background.js"
import { AppConfig } from "../../platform/Config.js"
import { makeIdlePause } from "../../platform/IdlePause.js"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { requireReader } from "../../schemas/Authorization.js"
import type { ExportRequest } from "../../schemas/Docgen.js"
import { notFound, NotImplemented } from "../../schemas/Errors.js"
import type { Principal } from "../../schemas/Principal.js"
import { Documents } from "./Documents.js"

const DOWNLOAD_HOURS = 1
const LEASE = "60 seconds"

const JobRow = Schema.Struct({
  id: Schema.UUID,
  tenant_id: Schema.String,
  owner_id: Schema.String,
  document_ids: Schema.Array(Schema.String),
  format: Schema.String,
  status: Schema.Literal("pending", "running", "complete", "error"),
  error: Schema.NullOr(Schema.String),
  expires_at: Schema.NullOr(Timestamp),
  created_at: Timestamp
})
type JobRow = typeof JobRow.Type
const jobRows = decodeRows("docgen_exports", JobRow)

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" })[c]!)

/** One self-contained HTML file: the documents in the requested order, each under its title. */
export const renderExport = (docs: ReadonlyArray<{ readonly title: string; readonly content_html: string }>) =>
  `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(docs[0]?.title ?? "Export")}</title>` +
  "<style>body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;line-height:1.5}article{page-break-after:always}" +
  "table{border-collapse:collapse}td,th{border:1px solid #999;padding:.25rem .5rem}</style></head><body>\n" +
  docs.map((d) => `<article><h1>${escapeHtml(d.title)}</h1>\n${d.content_html}\n</article>`).join("\n") +
  "\n</body></html>\n"

/**
 * Export jobs: `html` builds one file of the caller's documents; the job is a row that every
 * process's worker claims (with a lease, so a job whose process died is built again) and
 * completes; the file is downloadable by its owner for an hour. `pdf` and `pptx` are 501.
 */
export class Exports extends Effect.Service<Exports>()("Exports", {
  dependencies: [Documents.Default],
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* Documents
    const config = yield* AppConfig
    const wake = yield* Queue.sliding<void>(1)

    const view = (job: JobRow) => ({
      id: job.id,
      status: job.status,
      format: job.format,
      document_ids: job.document_ids,
      download_url: job.status === "complete" ? `${config.publicBaseUrl}/api/v1/docgen/export/${job.id}/download` : null,
      expires_at: job.expires_at,
      error: job.error,
      created_at: job.created_at
    })

    const find = (principal: Principal, id: string) =>
      sql`SELECT id, tenant_id, owner_id, document_ids::text[] AS document_ids, format, status, error, expires_at, created_at FROM docgen_exports
        WHERE tenant_id = ${principal.tenantId} AND owner_id = ${principal.userId} AND id = ${id}`.pipe(
        jobRows,
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(notFound("Export job")) : Effect.succeed(rows[0]))
      )

    const build = (job: JobRow) =>
      Effect.gen(function*() {
        const writer = { tenantId: job.tenant_id, userId: job.owner_id }
        const docs = yield* Effect.forEach(job.document_ids, (id) => Effect.either(documents.find(writer, id)))
        const missing = docs.filter((d) => d._tag === "Left").length
        if (missing > 0) {
          yield* sql`UPDATE docgen_exports SET status = 'error', error = ${`${missing} of the documents no longer exist`}, completed_at = now() WHERE id = ${job.id}`
          return
        }
        const html = renderExport(docs.flatMap((d) => (d._tag === "Right" ? [d.right] : [])))
        yield* sql`UPDATE docgen_exports SET status = 'complete', file_html = ${html}, completed_at = now(),
          expires_at = now() + ${`${DOWNLOAD_HOURS} hours`}::interval, lease_until = NULL WHERE id = ${job.id} AND status = 'running'`
      })

    const claim = sql`UPDATE docgen_exports SET status = 'running', lease_until = now() + ${LEASE}::interval
      WHERE id = (SELECT id FROM docgen_exports WHERE status = 'pending' OR (status = 'running' AND lease_until < now())
                  ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, tenant_id, owner_id, document_ids::text[] AS document_ids, format, status, error, expires_at, created_at`.pipe(jobRows)

    const pause = makeIdlePause("500 millis", "2 seconds")
    const round = Effect.gen(function*() {
      const [job] = yield* claim
      if (job === undefined) return yield* pause.idle(Queue.take(wake))
      yield* pause.worked
      yield* build(job).pipe(Effect.withTracerEnabled(true))
    })
    yield* keepRunning("Building export jobs", round)

    return traced("Exports", {
      create: (principal: Principal, body: typeof ExportRequest.Type) =>
        Effect.gen(function*() {
          yield* requireReader(principal)
          if (body.format !== "html") {
            return yield* new NotImplemented({ code: "NOT_IMPLEMENTED", message: `Export as ${body.format} is not available; export as html` })
          }
          yield* Effect.forEach(body.document_ids, (id) => documents.find(documents.writerOf(principal), id), { discard: true })
          const id = randomUUID()
          yield* sql`INSERT INTO docgen_exports ${
            sql.insert({ id, tenant_id: principal.tenantId, owner_id: principal.userId, document_ids: [...body.document_ids], format: body.format })
          }`.pipe(Effect.orDie)
          yield* Queue.offer(wake, undefined)
          return view(yield* find(principal, id))
        }),
      get: (principal: Principal, id: string) => Effect.map(find(principal, id), view),
      download: (principal: Principal, id: string) =>
        Effect.gen(function*() {
          const job = yield* find(principal, id)
          const [file] = yield* sql`SELECT file_html FROM docgen_exports WHERE id = ${id} AND status = 'complete'
            AND expires_at > now()`.pipe(decodeRows("docgen_exports", Schema.Struct({ file_html: Schema.NullOr(Schema.String) }))).pipe(Effect.orDie)
          if (file?.file_html == null) return yield* notFound(job.status === "complete" ? "Export file (expired)" : "Export file (not ready)")
          return file.file_html
        })
    })
  })
}) {}
