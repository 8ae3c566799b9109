import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { Nudges } from "./Nudges.js"

export const NudgesHttp = HttpApiBuilder.group(PlatformApi, "nudges", (handlers) =>
  Effect.map(Nudges, (nudges) =>
    handlers
      .handle("list", () => asCaller((p) => nudges.list(p)))
      .handle("respond", ({ path, payload }) => asCaller((p) => nudges.respond(p, path.id, payload.value)))))
