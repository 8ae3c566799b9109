import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { DocumentTriggers } from "./DocumentTriggers.js"

export const DocumentTriggersHttp = HttpApiBuilder.group(PlatformApi, "documentTriggers", (handlers) =>
  Effect.map(DocumentTriggers, (triggers) =>
    handlers
      .handle("create", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => triggers.create(p, path.id, payload)))
      .handle("list", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => triggers.list(p, path.id)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => triggers.get(p, path.id, path.binding_id)))
      .handle("replace", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => triggers.replace(p, path.id, path.binding_id, payload)))
      .handle("remove", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => triggers.remove(p, path.id, path.binding_id)))
      .handle("enable", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => triggers.enable(p, path.id, path.binding_id)))
      .handle("disable", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => triggers.disable(p, path.id, path.binding_id)))))
