import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { PlatformApi } from "../../schemas/Api.js"
import { ServiceUnavailable } from "../../schemas/Errors.js"

export const SystemHttp = HttpApiBuilder.group(PlatformApi, "system", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return handlers.handle("health", () =>
      sql`SELECT 1`.pipe(
        Effect.timeout("2 seconds"),
        Effect.as({ status: "ok" as const }),
        Effect.catchAll(() =>
          Effect.fail(new ServiceUnavailable({ code: "DATABASE_UNAVAILABLE", message: "The database does not answer" }))
        )
      ))
  }))
