import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "./Config.js"
import { embeddedDatabase } from "./EmbeddedDatabase.js"

/** `DATABASE_URL` when set, else the embedded PostgreSQL in `DATA_DIR/pg`. */
export const DatabaseLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const common = { applicationName: "builder-platform", maxConnections: 20 }
    if (Option.isSome(config.databaseUrl)) {
      return PgClient.layer({ url: config.databaseUrl.value, ...common })
    }
    const db = yield* embeddedDatabase(config.dataDir)
    return PgClient.layer({
      host: db.host,
      port: db.port,
      username: db.user,
      password: Redacted.make(db.password),
      database: db.database,
      ...common
    })
  })
).pipe(Layer.orDie)
