import { NodeContext } from "@effect/platform-node"
import { PgMigrator } from "@effect/sql-pg"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"

/** One owner's migrations (a service, the run kernel, the platform) and its own migrations table. */
export interface MigrationSet {
  readonly table: string
  readonly migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>
}

/** Runs each set's pending migrations, the sets in the order given. */
export const runMigrations = (sets: ReadonlyArray<MigrationSet>) =>
  Effect.forEach(
    sets,
    ({ migrations, table }) => PgMigrator.run({ loader: PgMigrator.fromRecord(migrations), table }),
    { discard: true }
  ).pipe(Effect.provide(NodeContext.layer), Effect.orDie, Effect.withSpan("migrations.run"))

export const migrationsLayer = (sets: ReadonlyArray<MigrationSet>) => Layer.effectDiscard(runMigrations(sets))
