import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Fiber, Layer } from "effect"
import pg from "pg"
import { DatabaseLive } from "../../platform/Database.js"
import { eventually } from "../support/RunPlatform.js"
import { testDatabase } from "../support/TestDatabase.js"
import { configLayer } from "../support/UnitLayers.js"

// DATABASE_POOL_SIZE: a process's main pool holds at most that many connections, so that many
// processes (a gateway and runners) can be counted against PostgreSQL's max_connections.

const SIZE = 3

const Setup = Layer.unwrapScoped(
  Effect.map(testDatabase, (db) =>
    Layer.merge(
      DatabaseLive.pipe(Layer.provide(configLayer({ DATABASE_URL: db.url, DATABASE_POOL_SIZE: String(SIZE) }))),
      Layer.succeed(TestDb, db)
    ))
).pipe(Layer.orDie)

class TestDb extends Context.Tag("test/TestDb")<TestDb, { readonly name: string; readonly url: string }>() {}

/** Statements sleeping in this database now, seen from a connection of the test's own. */
const sleeping = ({ name: database, url }: { readonly name: string; readonly url: string }) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'SELECT pg_sleep%' AND state = 'active'",
      [database]
    ).finally(() => client.end())
    return rows[0].n
  })

layer(Setup, { timeout: "60 seconds", excludeTestServices: true })("the database pool's size", (it) => {
  it.effect("ten statements at once through a pool of three run three at a time", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const database = yield* TestDb
      const all = yield* Effect.fork(Effect.all(Array.from({ length: 10 }, () => sql`SELECT pg_sleep(0.5)`), { concurrency: "unbounded" }))
      yield* eventually(Effect.map(sleeping(database), (n) => n === SIZE ? n : undefined), "the pool's connections all sleeping")
      const seen: Array<number> = []
      for (let i = 0; i < 8; i++) {
        seen.push(yield* sleeping(database))
        yield* Effect.sleep("100 millis")
      }
      yield* Fiber.join(all)
      assert.isAtMost(Math.max(...seen), SIZE, `seen at once: ${seen.join(", ")}`)
    }))
})
