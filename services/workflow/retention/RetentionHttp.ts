import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { RetentionHolds } from "./RetentionHolds.js"

export const RetentionHttp = HttpApiBuilder.group(PlatformApi, "retention", (handlers) =>
  Effect.gen(function*() {
    const holds = yield* RetentionHolds
    return handlers
      .handle("policy", () => asCaller((p) => holds.policy(p)))
      .handle("holdRun", ({ path }) => asCaller((p) => holds.holdRun(p, path.run_id)))
      .handle("releaseRun", ({ path }) => asCaller((p) => holds.releaseRun(p, path.run_id)))
      .handle("holdWorkflow", ({ path }) => asCaller((p) => holds.holdWorkflow(p, path.id)))
      .handle("releaseWorkflow", ({ path }) => asCaller((p) => holds.releaseWorkflow(p, path.id)))
  }))
