import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { InboundEmail } from "./InboundEmail.js"

export const InboundEmailHttp = HttpApiBuilder.group(PlatformApi, "inboundEmail", (handlers) =>
  Effect.map(InboundEmail, (inbound) =>
    handlers
      .handle("settings", ({ path, payload }) => asCaller((p) => inbound.settings(p, path.id, payload.enabled)))
      .handle("getSettings", ({ path }) => asCaller((p) => inbound.getSettings(p, path.id)))
      .handle("message", ({ path }) => asCaller((p) => inbound.message(p, path.id, path.message_id)))))
