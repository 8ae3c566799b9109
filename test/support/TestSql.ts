import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { migrateAll } from "../../services/gateway/Migrations.js"
import { migratedDatabase } from "./TestDatabase.js"

/** A migrated database of the suite's own, dropped afterwards. */
export const TestSqlLive = Layer.unwrapScoped(
  Effect.map(migratedDatabase, (db) => Layer.effectDiscard(migrateAll).pipe(Layer.provideMerge(PgClient.layer({ url: Redacted.make(db.url) }))))
).pipe(Layer.orDie)
