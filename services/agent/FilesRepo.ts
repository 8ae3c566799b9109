import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, Timestamp } from "../../platform/Rows.js"
import { traced } from "../../platform/Traced.js"
import { GeneratedFiles } from "../../runtime/agents/RuleReport.js"

export const FileRow = Schema.Struct({
  id: Schema.String,
  filename: Schema.String,
  content_type: Schema.String,
  size_bytes: Schema.Number,
  content: Schema.Uint8ArrayFromSelf,
  run_id: Schema.String,
  created_at: Timestamp
})
export type FileRow = typeof FileRow.Type

const fileRows = decodeRows("agent_files", FileRow)

/** Files agents produce (rule_validation reports), kept per tenant. */
export class FilesRepo extends Effect.Service<FilesRepo>()("FilesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return traced("FilesRepo", {
      insert: (f: { tenantId: string; filename: string; contentType: string; bytes: Uint8Array; runId: string }) =>
        Effect.gen(function*() {
          const id = randomUUID()
          yield* sql`INSERT INTO agent_files ${
            sql.insert({
              id,
              tenant_id: f.tenantId,
              filename: f.filename,
              content_type: f.contentType,
              size_bytes: f.bytes.byteLength,
              content: Buffer.from(f.bytes),
              run_id: f.runId
            })
          }`
          return id
        }).pipe(Effect.orDie),
      get: (tenantId: string, id: string) =>
        sql`SELECT id, filename, content_type, size_bytes, content, run_id, created_at FROM agent_files
          WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(fileRows).pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie)
    })
  })
}) {}

/** The runtime's file sink, answered by this repository. */
export const GeneratedFilesLive = Layer.effect(
  GeneratedFiles,
  Effect.map(FilesRepo, (repo) => ({ save: repo.insert }))
).pipe(Layer.provideMerge(FilesRepo.Default))
