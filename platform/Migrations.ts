import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgMigrator } from "@effect/sql-pg"
import { Effect, Layer } from "effect"

/** One owner's migrations (a service, the run kernel, the platform) and its own migrations table. */
export interface MigrationSet {
  readonly table: string
  readonly migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>
}

/**
 * The one advisory lock every process takes around its migrations, whatever its version or role:
 * processes started at once on an empty database migrate one after the other, and the later ones
 * find nothing left to do. Held by a reserved connection, so a process that dies mid-way frees it.
 */
const MIGRATION_LOCK = 4_207_331_917

const underMigrationLock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const conn = yield* sql.reserve
    yield* conn.executeRaw(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`, [])
    yield* Effect.addFinalizer(() => conn.executeRaw(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`, []).pipe(Effect.ignore))
    return yield* effect
  }))

/**
 * Runs each set's pending migrations, the sets in the order given, then `after` (tables other
 * libraries create for themselves, made here so that no two processes create them at once).
 */
export const runMigrations = <R = never>(sets: ReadonlyArray<MigrationSet>, after: Effect.Effect<void, unknown, R> = Effect.void) =>
  underMigrationLock(Effect.zipRight(
    Effect.forEach(
      sets,
      ({ migrations, table }) => PgMigrator.run({ loader: PgMigrator.fromRecord(migrations), table }),
      { discard: true }
    ),
    after
  )).pipe(Effect.provide(NodeContext.layer), Effect.orDie, Effect.withSpan("migrations.run"))

export const migrationsLayer = <R = never>(sets: ReadonlyArray<MigrationSet>, after?: Effect.Effect<void, unknown, R>) =>
  Layer.effectDiscard(runMigrations(sets, after))
