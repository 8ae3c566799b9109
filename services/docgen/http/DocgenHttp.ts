import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { tenantHtml } from "../../../platform/http/TenantHtml.js"
import { readMultipartUpload } from "../../../platform/MultipartUpload.js"
import { PlatformApi } from "../../../schemas/Api.js"
import { NotImplemented } from "../../../schemas/Errors.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
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
    const as = <A, E, R>(f: (p: typeof CurrentPrincipal.Service) => Effect.Effect<A, E, R>) => Effect.flatMap(CurrentPrincipal, f)
    return handlers
      .handle("list", ({ urlParams }) => as((p) => documents.list(p, urlParams)))
      .handle("create", ({ payload }) => as((p) => documents.create(p, payload)))
      .handle("bulk", ({ payload }) => as((p) => documents.bulk(p, payload)))
      .handle("get", ({ path }) => as((p) => documents.get(p, path.id)))
      .handle("update", ({ path, payload }) => as((p) => documents.update(p, path.id, payload)))
      .handle("remove", ({ path }) => as((p) => documents.remove(p, path.id)))
      .handle("versions", ({ path }) => as((p) => documents.versions(p, path.id)))
      .handle("version", ({ path }) => as((p) => documents.version(p, path.id, path.versionNumber)))
      .handle("save", ({ path, payload }) => as((p) => documents.save(p, path.id, payload)))
      .handle("restore", ({ path }) => as((p) => documents.restore(p, path.id, path.versionNumber)))
      .handle("generate", ({ path, payload }) => as((p) => generation.generate(p, path.id, payload)))
      .handle("threads", ({ path }) => as((p) => comments.list(p, path.id)))
      .handle("createThread", ({ path, payload }) => as((p) => comments.create(p, path.id, payload)))
      .handle("updateThread", ({ path, payload }) => as((p) => comments.setStatus(p, path.id, path.threadId, payload.status)))
      .handle("removeThread", ({ path }) => as((p) => comments.remove(p, path.id, path.threadId)))
      .handle("reply", ({ path, payload }) => as((p) => comments.reply(p, path.id, path.threadId, payload.content)))
      .handle("updateReply", ({ path, payload }) => as((p) => comments.editReply(p, path.id, path.threadId, path.commentId, payload.content)))
      .handle("removeReply", ({ path }) => as((p) => comments.removeReply(p, path.id, path.threadId, path.commentId)))
      .handle("allThreads", ({ urlParams }) => as((p) => comments.batch(p, urlParams)))
      .handle("docSessions", ({ path }) => as((p) => assistant.list(p, path.id)))
      .handle("createDocSession", ({ path, payload }) => as((p) => assistant.create(p, path.id, payload)))
      .handle("docSession", ({ path }) => as((p) => assistant.get(p, path.id, path.sessionId)))
      .handle("renameDocSession", ({ path, payload }) => as((p) => assistant.rename(p, path.id, path.sessionId, payload.title)))
      .handle("removeDocSession", ({ path }) => as((p) => assistant.remove(p, path.id, path.sessionId)))
      .handle("docMessages", ({ path }) => as((p) => assistant.messages(p, path.id, path.sessionId)))
      .handle("docMessage", ({ path, payload }) => as((p) => assistant.send(p, path.id, path.sessionId, payload)))
      .handle("sessions", () => as((p) => assistant.list(p, null)))
      .handle("createSession", ({ payload }) => as((p) => assistant.create(p, null, payload)))
      .handle("session", ({ path }) => as((p) => assistant.get(p, null, path.sessionId)))
      .handle("renameSession", ({ path, payload }) => as((p) => assistant.rename(p, null, path.sessionId, payload.title)))
      .handle("removeSession", ({ path }) => as((p) => assistant.remove(p, null, path.sessionId)))
      .handle("messages", ({ path }) => as((p) => assistant.messages(p, null, path.sessionId)))
      .handle("message", ({ path, payload }) => as((p) => assistant.send(p, null, path.sessionId, payload)))
      .handle("outline", ({ payload }) =>
        payload.input_type === "AI"
          ? Effect.fail(new NotImplemented({ code: "NOT_IMPLEMENTED", message: "The AI-generated outline is not available; send a MANUAL or UPLOAD outline" }))
          : as((p) => documents.outline(p, payload.input_type === "MANUAL" ? "html" : "markdown", payload.content)))
      .handle("profiles", () => as((p) => profiles.list(p)))
      .handle("createProfile", ({ payload }) => as((p) => profiles.create(p, payload)))
      .handle("classify", ({ payload }) => as((p) => profiles.classify(p, payload.section_titles)))
      .handle("profile", ({ path }) => as((p) => profiles.get(p, path.id)))
      .handle("updateProfile", ({ path, payload }) => as((p) => profiles.update(p, path.id, payload)))
      .handle("removeProfile", ({ path }) => as((p) => profiles.remove(p, path.id)))
      .handle("templates", () => as((p) => templates.list(p)))
      .handle("createTemplate", ({ payload }) => as((p) => templates.create(p, payload)))
      .handleRaw("uploadTemplate", () => as((p) => Effect.flatMap(readTemplateUpload, (upload) => templates.upload(p, upload))))
      .handle("template", ({ path }) => as((p) => templates.get(p, path.id)))
      .handle("updateTemplate", ({ path, payload }) => as((p) => templates.update(p, path.id, payload)))
      .handle("removeTemplate", ({ path }) => as((p) => templates.remove(p, path.id)))
      .handle("templateHtml", ({ path }) => as((p) => Effect.map(templates.html(p, path.id), (html) => tenantHtml(html))))
      .handle("templateThumbnail", ({ path }) => as((p) => templates.thumbnail(p, path.id)))
      .handle("setDefaultTemplate", ({ path }) => as((p) => templates.setDefault(p, path.id)))
      .handle("duplicateTemplate", ({ path }) => as((p) => templates.duplicate(p, path.id)))
      .handle("reextractTemplate", ({ path }) => as((p) => templates.reextract(p, path.id)))
      .handle("slides", ({ path }) => as((p) => templates.slides(p, path.id)))
      .handle("reorderSlides", ({ path, payload }) => as((p) => templates.reorder(p, path.id, payload.order)))
      .handle("slide", ({ path }) => as((p) => templates.slide(p, path.id, path.slide)))
      .handle("editSlide", ({ path, payload }) => as((p) => templates.edit(p, path.id, path.slide, payload.texts)))
      .handle("removeSlide", ({ path }) => as((p) => templates.removeSlide(p, path.id, path.slide)))
      .handle("export", ({ payload }) => as((p) => exports.create(p, payload)))
      .handle("exportJob", ({ path }) => as((p) => exports.get(p, path.jobId)))
      .handle("download", ({ path }) =>
        as((p) => Effect.map(exports.download(p, path.jobId), (html) => tenantHtml(html, { filename: `export-${path.jobId}.html` }))))
  }))
