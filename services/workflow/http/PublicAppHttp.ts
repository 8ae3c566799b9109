import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { PublicApp } from "../PublicApp.js"

export const PublicAppHttp = HttpApiBuilder.group(
  PlatformApi,
  "publicApp",
  (handlers) =>
    Effect.map(PublicApp, (app) =>
      handlers
        .handle("run", ({ path, payload }) => app.start(path.id, payload))
        .handle("info", ({ path }) => app.info(path.id))
        .handle("runStatus", ({ path }) => app.runStatus(path.id, path.run_id)))
)
