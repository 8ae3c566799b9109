import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { tenantHtml } from "../../../platform/http/TenantHtml.js"
import { readMultipartUpload } from "../../../platform/MultipartUpload.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { NotImplemented } from "../../../schemas/Errors.js"
import { asCaller } from "../../../schemas/Principal.js"
import { Assistant } from "../Assistant.js"
import { Comments } from "../Comments.js"
import { Documents } from "../Documents.js"
import { Exports } from "../Exports.js"
import { Generation } from "../Generation.js"
import { SectionProfiles } from "../SectionProfiles.js"
import { MAX_TEMPLATE_BYTES, Templates } from "../Templates.js"

/** A template upload: multipart with `file`, and optionally `name` and `mode`. */
const readTemplateUpload = Effect.map(
  readMultipartUpload(MAX_TEMPLATE_BYTES, { code: "TEMPLATE_TOO_LARGE", message: "Templates are limited to 20 MiB" }),
  ({ bytes, fields, filename }) => ({ name: fields.name || undefined, mode: fields.mode, filename, bytes })
)

export const DocgenHttp = HttpApiBuilder.group(PlatformApi, "docgen", (handlers) =>
  Effect.gen(function*() {
    const documents = yield* Documents
    const generation = yield* Generation
    const comments = yield* Comments
    const exports = yield* Exports
    const assistant = yield* Assistant
    const profiles = yield* SectionProfiles
    const templates = yield* Templates
    return handlers
      .handle("list", ({ urlParams }) => asCaller((p) => documents.list(p, urlParams)))
      .handle("create", ({ payload }) => asCaller((p) => documents.create(p, payload)))
      .handle("bulk", ({ payload }) => asCaller((p) => documents.bulk(p, payload)))
      .handle("get", ({ path }) => asCaller((p) => documents.get(p, path.id)))
      .handle("update", ({ path, payload }) => asCaller((p) => documents.update(p, path.id, payload)))
      .handle("remove", ({ path }) => asCaller((p) => documents.remove(p, path.id)))
      .handle("versions", ({ path }) => asCaller((p) => documents.versions(p, path.id)))
      .handle("version", ({ path }) => asCaller((p) => documents.version(p, path.id, path.versionNumber)))
      .handle("save", ({ path, payload }) => asCaller((p) => documents.save(p, path.id, payload)))
      .handle("restore", ({ path }) => asCaller((p) => documents.restore(p, path.id, path.versionNumber)))
      .handle("generate", ({ path, payload }) => asCaller((p) => generation.generate(p, path.id, payload)))
      .handle("threads", ({ path }) => asCaller((p) => comments.list(p, path.id)))
      .handle("createThread", ({ path, payload }) => asCaller((p) => comments.create(p, path.id, payload)))
      .handle("updateThread", ({ path, payload }) => asCaller((p) => comments.setStatus(p, path.id, path.threadId, payload.status)))
      .handle("removeThread", ({ path }) => asCaller((p) => comments.remove(p, path.id, path.threadId)))
      .handle("reply", ({ path, payload }) => asCaller((p) => comments.reply(p, path.id, path.threadId, payload.content)))
      .handle("updateReply", ({ path, payload }) => asCaller((p) => comments.editReply(p, path.id, path.threadId, path.commentId, payload.content)))
      .handle("removeReply", ({ path }) => asCaller((p) => comments.removeReply(p, path.id, path.threadId, path.commentId)))
      .handle("allThreads", ({ urlParams }) => asCaller((p) => comments.batch(p, urlParams)))
      .handle("docSessions", ({ path }) => asCaller((p) => assistant.list(p, path.id)))
      .handle("createDocSession", ({ path, payload }) => asCaller((p) => assistant.create(p, path.id, payload)))
      .handle("docSession", ({ path }) => asCaller((p) => assistant.get(p, path.id, path.sessionId)))
      .handle("renameDocSession", ({ path, payload }) => asCaller((p) => assistant.rename(p, path.id, path.sessionId, payload.title)))
      .handle("removeDocSession", ({ path }) => asCaller((p) => assistant.remove(p, path.id, path.sessionId)))
      .handle("docMessages", ({ path }) => asCaller((p) => assistant.messages(p, path.id, path.sessionId)))
      .handle("docMessage", ({ path, payload }) => asCaller((p) => assistant.send(p, path.id, path.sessionId, payload)))
      .handle("sessions", () => asCaller((p) => assistant.list(p, null)))
      .handle("createSession", ({ payload }) => asCaller((p) => assistant.create(p, null, payload)))
      .handle("session", ({ path }) => asCaller((p) => assistant.get(p, null, path.sessionId)))
      .handle("renameSession", ({ path, payload }) => asCaller((p) => assistant.rename(p, null, path.sessionId, payload.title)))
      .handle("removeSession", ({ path }) => asCaller((p) => assistant.remove(p, null, path.sessionId)))
      .handle("messages", ({ path }) => asCaller((p) => assistant.messages(p, null, path.sessionId)))
      .handle("message", ({ path, payload }) => asCaller((p) => assistant.send(p, null, path.sessionId, payload)))
      .handle("outline", ({ payload }) =>
        payload.input_type === "AI"
          ? Effect.fail(new NotImplemented({ code: "NOT_IMPLEMENTED", message: "The AI-generated outline is not available; send a MANUAL or UPLOAD outline" }))
          : asCaller((p) => documents.outline(p, payload.input_type === "MANUAL" ? "html" : "markdown", payload.content)))
      .handle("profiles", () => asCaller((p) => profiles.list(p)))
      .handle("createProfile", ({ payload }) => asCaller((p) => profiles.create(p, payload)))
      .handle("classify", ({ payload }) => asCaller((p) => profiles.classify(p, payload.section_titles)))
      .handle("profile", ({ path }) => asCaller((p) => profiles.get(p, path.id)))
      .handle("updateProfile", ({ path, payload }) => asCaller((p) => profiles.update(p, path.id, payload)))
      .handle("removeProfile", ({ path }) => asCaller((p) => profiles.remove(p, path.id)))
      .handle("templates", () => asCaller((p) => templates.list(p)))
      .handle("createTemplate", ({ payload }) => asCaller((p) => templates.create(p, payload)))
      .handleRaw("uploadTemplate", () => asCaller((p) => Effect.flatMap(readTemplateUpload, (upload) => templates.upload(p, upload))))
      .handle("template", ({ path }) => asCaller((p) => templates.get(p, path.id)))
      .handle("updateTemplate", ({ path, payload }) => asCaller((p) => templates.update(p, path.id, payload)))
      .handle("removeTemplate", ({ path }) => asCaller((p) => templates.remove(p, path.id)))
      .handle("templateHtml", ({ path }) => asCaller((p) => Effect.map(templates.html(p, path.id), (html) => tenantHtml(html))))
      .handle("templateThumbnail", ({ path }) => asCaller((p) => templates.thumbnail(p, path.id)))
      .handle("setDefaultTemplate", ({ path }) => asCaller((p) => templates.setDefault(p, path.id)))
      .handle("duplicateTemplate", ({ path }) => asCaller((p) => templates.duplicate(p, path.id)))
      .handle("reextractTemplate", ({ path }) => asCaller((p) => templates.reextract(p, path.id)))
      .handle("slides", ({ path }) => asCaller((p) => templates.slides(p, path.id)))
      .handle("reorderSlides", ({ path, payload }) => asCaller((p) => templates.reorder(p, path.id, payload.order)))
      .handle("slide", ({ path }) => asCaller((p) => templates.slide(p, path.id, path.slide)))
      .handle("editSlide", ({ path, payload }) => asCaller((p) => templates.edit(p, path.id, path.slide, payload.texts)))
      .handle("removeSlide", ({ path }) => asCaller((p) => templates.removeSlide(p, path.id, path.slide)))
      .handle("export", ({ payload }) => asCaller((p) => exports.create(p, payload)))
      .handle("exportJob", ({ path }) => asCaller((p) => exports.get(p, path.jobId)))
      .handle("download", ({ path }) =>
        asCaller((p) => Effect.map(exports.download(p, path.jobId), (html) => tenantHtml(html, { filename: `export-${path.jobId}.html` }))))
  }))
