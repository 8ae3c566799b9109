import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { VoiceTrees } from "./VoiceTrees.js"

export const VoiceHttp = HttpApiBuilder.group(PlatformApi, "voiceTrees", (handlers) =>
  Effect.gen(function*() {
    const trees = yield* VoiceTrees
    return handlers
      .handle("create", ({ payload }) => asCaller((p) => trees.create(p, payload)))
      .handle("list", ({ urlParams }) => asCaller((p) => trees.list(p, urlParams)))
      .handle("get", ({ path }) => asCaller((p) => trees.get(p, path.id)))
      .handle("addVersion", ({ path, payload }) => asCaller((p) => trees.addVersion(p, path.id, payload.content)))
      .handle("versions", ({ path }) => asCaller((p) => trees.versions(p, path.id)))
      .handle("version", ({ path }) => asCaller((p) => trees.version(p, path.id, path.versionId)))
      .handle("publish", ({ path, payload }) => asCaller((p) => trees.publish(p, path.id, payload.version_id)))
      .handle("revert", ({ path }) => asCaller((p) => trees.revert(p, path.id, path.versionId)))
  }))
