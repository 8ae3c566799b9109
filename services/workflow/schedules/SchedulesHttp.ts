import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { Schedules } from "./Schedules.js"

export const SchedulesHttp = HttpApiBuilder.group(PlatformApi, "schedules", (handlers) =>
  Effect.map(Schedules, (schedules) =>
    handlers
      .handle("put", ({ path, payload }) => asCaller((p) => schedules.put(p, path.id, payload)))
      .handle("get", ({ path }) => asCaller((p) => schedules.get(p, path.id)))
      .handle("enable", ({ path }) => asCaller((p) => schedules.enable(p, path.id)))
      .handle("disable", ({ path }) => asCaller((p) => schedules.disable(p, path.id)))
      .handle("remove", ({ path }) => asCaller((p) => schedules.remove(p, path.id)))
      .handle("previewSchedule", ({ payload }) => asCaller((p) => schedules.preview(p, payload)))))
