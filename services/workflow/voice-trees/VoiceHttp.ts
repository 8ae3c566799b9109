import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { VoiceTrees } from "./VoiceTrees.js"

export const VoiceHttp = HttpApiBuilder.group(PlatformApi, "voiceTrees", (handlers) =>
  Effect.gen(function*() {
    const trees = yield* VoiceTrees
    const as = CurrentPrincipal
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(as, (p) => trees.create(p, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(as, (p) => trees.list(p, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(as, (p) => trees.get(p, path.id)))
      .handle("addVersion", ({ path, payload }) => Effect.flatMap(as, (p) => trees.addVersion(p, path.id, payload.content)))
      .handle("versions", ({ path }) => Effect.flatMap(as, (p) => trees.versions(p, path.id)))
      .handle("version", ({ path }) => Effect.flatMap(as, (p) => trees.version(p, path.id, path.versionId)))
      .handle("publish", ({ path, payload }) => Effect.flatMap(as, (p) => trees.publish(p, path.id, payload.version_id)))
      .handle("revert", ({ path }) => Effect.flatMap(as, (p) => trees.revert(p, path.id, path.versionId)))
  }))
