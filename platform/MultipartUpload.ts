import { HttpServerRequest } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import type { ErrorCode } from "../schemas/ErrorCodes.js"
import { badRequest, PayloadTooLarge } from "../schemas/Errors.js"

/**
 * The multipart upload of the current request: its `file` part's bytes and name, and its text
 * fields. Not multipart, unreadable or without a file is 400; over `maxBytes` is 413 `tooLarge`.
 */
export const readMultipartUpload = (maxBytes: number, tooLarge: { readonly code: ErrorCode; readonly message: string }) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!(request.headers["content-type"] ?? "").includes("multipart/form-data")) {
      return yield* badRequest("INVALID_MULTIPART", "Send this upload as multipart/form-data with its file")
    }
    const form = yield* request.multipart.pipe(
      Effect.mapError(() => badRequest("INVALID_MULTIPART", "The multipart body could not be read")),
      Effect.provide(NodeContext.layer)
    )
    const file = Object.values(form).flatMap((v) => (Array.isArray(v) ? v : [v])).find(
      (p): p is { _tag: "PersistedFile"; path: string; name: string } =>
        typeof p === "object" && p !== null && (p as { _tag?: string })._tag === "PersistedFile"
    )
    if (file === undefined) return yield* badRequest("FILE_REQUIRED", "Send the file as the multipart field 'file'")
    const bytes = new Uint8Array(yield* Effect.promise(() => readFile(file.path)))
    if (bytes.byteLength > maxBytes) return yield* new PayloadTooLarge(tooLarge)
    const fields = Object.fromEntries(Object.entries(form).flatMap(([k, v]) => (typeof v === "string" ? [[k, v.trim()]] : [])))
    return { filename: file.name, bytes, fields }
  }).pipe(Effect.scoped)
