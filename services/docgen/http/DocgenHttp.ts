import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { Comments } from "../Comments.js"
import { Documents } from "../Documents.js"
import { Exports } from "../Exports.js"
import { Generation } from "../Generation.js"

export const DocgenHttp = HttpApiBuilder.group(PlatformApi, "docgen", (handlers) =>
  Effect.gen(function*() {
    const documents = yield* Documents
    const generation = yield* Generation
    const comments = yield* Comments
    const exports = yield* Exports
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
      .handle("export", ({ payload }) => as((p) => exports.create(p, payload)))
      .handle("exportJob", ({ path }) => as((p) => exports.get(p, path.jobId)))
      .handle("download", ({ path }) => as((p) => exports.download(p, path.jobId)))
  }))
