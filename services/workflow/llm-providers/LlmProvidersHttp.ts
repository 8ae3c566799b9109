import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { LlmProviders } from "./LlmProviders.js"

export const LlmProvidersHttp = HttpApiBuilder.group(PlatformApi, "llmProviders", (handlers) =>
  Effect.gen(function*() {
    const providers = yield* LlmProviders
    return handlers
      .handle("create", ({ payload }) => asCaller((p) => providers.create(p, payload)))
      .handle("list", ({ urlParams }) => asCaller((p) => providers.list(p, urlParams)))
      .handle("get", ({ path }) => asCaller((p) => providers.get(p, path.id)))
      .handle("update", ({ path, payload }) => asCaller((p) => providers.update(p, path.id, payload)))
      .handle("remove", ({ path }) => asCaller((p) => providers.remove(p, path.id)))
  }))
