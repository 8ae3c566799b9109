import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { CurrentPrincipal } from "../../../schemas/Principal.js"
import { Schedules } from "./Schedules.js"

export const SchedulesHttp = HttpApiBuilder.group(PlatformApi, "schedules", (handlers) =>
  Effect.map(Schedules, (schedules) =>
    handlers
      .handle("put", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => schedules.put(p, path.id, payload)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => schedules.get(p, path.id)))
      .handle("enable", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => schedules.enable(p, path.id)))
      .handle("disable", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => schedules.disable(p, path.id)))
      .handle("remove", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => schedules.remove(p, path.id)))
      .handle("previewSchedule", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => schedules.preview(p, payload)))))
