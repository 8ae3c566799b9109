import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer } from "effect"
import { DatabaseLive } from "../../platform/Database.js"
import { eventually } from "../support/RunPlatform.js"
import { testDatabase } from "../support/TestDatabase.js"
import { configLayer } from "../support/UnitLayers.js"

const SqlLive = Layer.unwrapScoped(
  Effect.map(testDatabase, (db) => DatabaseLive.pipe(Layer.provide(configLayer({ DATABASE_URL: db.url }))))
).pipe(Layer.orDie)

/** The pool's size (platform/Database.ts). */
const POOL = 20

const ms = (n: number) => Effect.sleep(`${n} millis`)

// A request whose client went away is interrupted with its statement running. The statement must
// stop without touching whoever gets its connection next: a cancel by process id, landing after
// the statement ended and the connection went to another request, failed that request with
// "canceling statement due to user request" (a 500 seen in the console's browser test).
layer(SqlLive, { timeout: "60 seconds", excludeTestServices: true })("an interrupted statement", (it) => {
  it.effect("stops without cancelling the next borrower's statement on its connection", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const interrupted = yield* Effect.fork(sql`SELECT pg_sleep(0.4)`)
      yield* ms(50)
      // Every other connection busy, so a cancel sent on another connection waits for one.
      const busy = yield* Effect.forkAll(Array.from({ length: POOL - 1 }, () => sql`SELECT pg_sleep(1)`))
      yield* ms(100)
      const next = yield* Effect.fork(Effect.exit(sql`SELECT pg_sleep(0.8) AS slept`))
      yield* ms(50)
      yield* Fiber.interrupt(interrupted)
      const exit = yield* Fiber.join(next)
      yield* Fiber.join(busy)
      assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? String(exit.cause) : "")
    }))

  it.effect("an abandoned long statement ends at the server within seconds", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const running = sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%abandoned-marker%' AND pid <> pg_backend_pid()`
      const fiber = yield* Effect.fork(sql`SELECT pg_sleep(30) /* abandoned-marker */`)
      yield* eventually(Effect.map(Effect.orDie(running), (r) => (r[0].n === 1 ? true : undefined)), "the statement running")
      yield* Fiber.interrupt(fiber)
      yield* eventually(Effect.map(Effect.orDie(running), (r) => (r[0].n === 0 ? true : undefined)), "the statement gone", 5_000)
      assert.deepStrictEqual((yield* sql<{ one: number }>`SELECT 1 AS one`)[0], { one: 1 })
    }))
})
