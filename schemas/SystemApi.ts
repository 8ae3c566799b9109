import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { ServiceUnavailable } from "./Errors.js"

export const Health = Schema.Struct({ status: Schema.Literal("ok") })

export class SystemApi extends HttpApiGroup.make("system")
  .add(HttpApiEndpoint.get("health", "/health").addSuccess(Health).addError(ServiceUnavailable))
{}
