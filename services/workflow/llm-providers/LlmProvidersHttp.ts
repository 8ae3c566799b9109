import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { LlmProviders } from "./LlmProviders.js"

export const LlmProvidersHttp = HttpApiBuilder.group(PlatformApi, "llmProviders", (handlers) =>
  Effect.gen(function*() {
    const providers = yield* LlmProviders
    const as = CurrentPrincipal
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(as, (p) => providers.create(p, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(as, (p) => providers.list(p, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(as, (p) => providers.get(p, path.id)))
      .handle("update", ({ path, payload }) => Effect.flatMap(as, (p) => providers.update(p, path.id, payload)))
      .handle("remove", ({ path }) => Effect.flatMap(as, (p) => providers.remove(p, path.id)))
  }))
