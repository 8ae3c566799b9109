import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect, ParseResult } from "effect"
import { readFile } from "node:fs/promises"
import { PlatformApi } from "../../../schemas/Api.js"
import { badRequest } from "../../../schemas/Errors.js"
import { DocumentRequest } from "../../../schemas/Knowledge.js"
import { asCaller } from "../../../schemas/Principal.js"
import { Knowledge } from "../Knowledge.js"

const MAX_FILE_BYTES = 10 * 1024 * 1024

/** The upload in either form: JSON with the text, or multipart with a file. */
const readUpload = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const contentType = request.headers["content-type"] ?? ""
  if (contentType.includes("multipart/form-data")) {
    const form = yield* request.multipart.pipe(
      Effect.mapError(() => badRequest("INVALID_MULTIPART", "The multipart body could not be read")),
      Effect.provide(NodeContext.layer)
    )
    const file = Object.values(form).flatMap((v) => (Array.isArray(v) ? v : [v])).find(
      (p): p is { _tag: "PersistedFile"; key: string; name: string; contentType: string; path: string } =>
        typeof p === "object" && p !== null && (p as { _tag?: string })._tag === "PersistedFile"
    )
    if (file === undefined) return yield* badRequest("FILE_REQUIRED", "Send the document as the multipart field 'file'")
    const bytes = new Uint8Array(yield* Effect.promise(() => readFile(file.path)))
    if (bytes.byteLength > MAX_FILE_BYTES) return yield* badRequest("FILE_TOO_LARGE", "Documents are limited to 10 MiB")
    const folder = typeof form.folder_path === "string" ? form.folder_path : "/"
    if (`${folder}${file.name}${file.contentType}`.includes("\0")) {
      return yield* badRequest("VALIDATION_ERROR", "Text may not contain NUL (\\u0000) characters")
    }
    return { title: file.name, folder_path: folder, mime_type: file.contentType, filename: file.name, bytes }
  }
  const body = yield* HttpServerRequest.schemaBodyJson(DocumentRequest).pipe(
    Effect.mapError((e) =>
      ParseResult.isParseError(e)
        ? badRequest("VALIDATION_ERROR", ParseResult.TreeFormatter.formatErrorSync(e))
        : badRequest("INVALID_BODY", "The request body is not valid JSON")
    )
  )
  return {
    title: body.title,
    folder_path: body.folder_path,
    mime_type: body.mime_type,
    filename: body.title,
    bytes: new TextEncoder().encode(body.content)
  }
}).pipe(Effect.scoped)

export const IngestionHttp = HttpApiBuilder.group(PlatformApi, "ingestion", (handlers) =>
  Effect.gen(function*() {
    const knowledge = yield* Knowledge
    return handlers
      .handle("createKb", ({ payload }) => asCaller((p) => knowledge.create(p, payload)))
      .handle("listKbs", ({ urlParams }) => asCaller((p) => knowledge.list(p, urlParams)))
      .handle("getKb", ({ path }) => asCaller((p) => knowledge.get(p, path.id)))
      .handle("updateKb", ({ path, payload }) => asCaller((p) => knowledge.update(p, path.id, payload)))
      .handle("deleteKb", ({ path }) => asCaller((p) => knowledge.remove(p, path.id)))
      .handleRaw(
        "addDocument",
        ({ path }) => asCaller((principal) => Effect.flatMap(readUpload, (upload) => knowledge.addDocument(principal, path.id, upload)))
      )
      .handle("documents", ({ path, urlParams }) => asCaller((p) => knowledge.documents(p, path.id, urlParams)))
      .handle("document", ({ path }) => asCaller((p) => knowledge.document(p, path.id, path.doc_id)))
      .handle("deleteDocument", ({ path }) => asCaller((p) => knowledge.removeDocument(p, path.id, path.doc_id)))
      .handle("search", ({ path, payload }) => asCaller((p) => knowledge.search(p, path.id, payload)))
  }))
