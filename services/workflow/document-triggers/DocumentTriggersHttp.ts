import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { DocumentTriggers } from "./DocumentTriggers.js"

export const DocumentTriggersHttp = HttpApiBuilder.group(PlatformApi, "documentTriggers", (handlers) =>
  Effect.map(DocumentTriggers, (triggers) =>
    handlers
      .handle("create", ({ path, payload }) => asCaller((p) => triggers.create(p, path.id, payload)))
      .handle("list", ({ path }) => asCaller((p) => triggers.list(p, path.id)))
      .handle("get", ({ path }) => asCaller((p) => triggers.get(p, path.id, path.binding_id)))
      .handle("replace", ({ path, payload }) => asCaller((p) => triggers.replace(p, path.id, path.binding_id, payload)))
      .handle("remove", ({ path }) => asCaller((p) => triggers.remove(p, path.id, path.binding_id)))
      .handle("enable", ({ path }) => asCaller((p) => triggers.enable(p, path.id, path.binding_id)))
      .handle("disable", ({ path }) => asCaller((p) => triggers.disable(p, path.id, path.binding_id)))))
