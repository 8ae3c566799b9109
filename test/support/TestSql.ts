import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { runMigrations } from "../../services/shared/Migrations.js"
import { testDatabase } from "./TestDatabase.js"

/** A migrated database of the suite's own, dropped afterwards. */
export const TestSqlLive = Layer.unwrapScoped(
  Effect.map(testDatabase, (db) =>
    Layer.effectDiscard(runMigrations).pipe(Layer.provideMerge(PgClient.layer({ url: Redacted.make(db.url) }))))
).pipe(Layer.orDie)
