import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceUnavailable } from "./Errors.js"

export const Health = Schema.Struct({ status: Schema.Literal("ok") }).annotations({ identifier: "Health" })

export const Readiness = Schema.Struct({
  status: Schema.Literal("ready"),
  role: Schema.Literal("all", "gateway", "services", "runners"),
  checks: Schema.Struct({
    database: Schema.Literal("ok"),
    migrations: Schema.Literal("ok"),
    /** Runner processes owning shards, for a process that sends runs to runners; absent where the process runs them itself. */
    runners: Schema.optional(Schema.Int)
  })
}).annotations({ identifier: "Readiness" })

export class SystemApi extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("health", "/health").addSuccess(Health).annotateContext(OpenApi.annotations({
      summary: "Liveness",
      description: "200 while the process serves (after its migrations ran at start); it asks nothing of the database, so a " +
        "database outage does not get a live process restarted. Before the start completes and while stopping: 503 " +
        "STARTING or SHUTTING_DOWN."
    }))
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready").addSuccess(Readiness).addError(ServiceUnavailable).annotateContext(OpenApi.annotations({
      summary: "Readiness",
      description: "200 when this process can do its work: the database answers within 2 s, migrations ran, and, for a " +
        "gateway or services process (ROLE), at least one runner process owns shards. 503 DATABASE_UNAVAILABLE or " +
        "NO_RUNNERS otherwise, with Retry-After."
    }))
  )
  .annotate(OpenApi.Title, "System")
{}
