import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PlatformApi } from "../../../schemas/Api.js"
import { asCaller } from "../../../schemas/Principal.js"
import { Webhooks } from "./Webhooks.js"

export const WebhooksHttp = HttpApiBuilder.group(PlatformApi, "webhooks", (handlers) =>
  Effect.map(Webhooks, (webhooks) =>
    handlers
      .handle("create", ({ path }) => asCaller((p) => webhooks.create(p, path.id)))
      .handle("list", ({ path }) => asCaller((p) => webhooks.list(p, path.id)))
      .handle("remove", ({ path }) => asCaller((p) => webhooks.remove(p, path.id, path.webhook_id)))))

export const WebhookDeliveryHttp = HttpApiBuilder.group(
  PlatformApi,
  "webhookDelivery",
  (handlers) =>
    Effect.map(
      Webhooks,
      (webhooks) =>
        handlers.handle("deliver", ({ headers, path, request }) =>
          webhooks.deliver(path.webhook_id, { signature: headers["x-signature-256"], deliveryId: headers["x-webhook-id"] }, request))
    )
)
