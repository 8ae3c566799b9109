import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Schema } from "effect"
import { DatabaseLive } from "../../platform/Database.js"
import { decodeRows } from "../../platform/Rows.js"
import { eventually } from "../support/RunPlatform.js"
import { testDatabase } from "../support/TestDatabase.js"
import { configLayer } from "../support/UnitLayers.js"

const LEASE_SECONDS = 2

const SqlLive = Layer.unwrapScoped(
  Effect.map(testDatabase, (db) => DatabaseLive.pipe(Layer.provide(configLayer({ DATABASE_URL: db.url, RUNNER_LEASE_SECONDS: String(LEASE_SECONDS) }))))
).pipe(Layer.orDie)

const idRows = decodeRows("frozen_claims", Schema.Struct({ id: Schema.Number }))

// A process that stops mid-transaction (SIGSTOP, a paused VM) kept its row locks for as long as it
// was stopped: a schedule it was firing was skipped (FOR UPDATE SKIP LOCKED) by every other
// process, so no fire time ran (seen in the scale-out test). PostgreSQL now ends a session idle in a
// transaction for longer than the runners' lease (platform/Database.ts).
layer(SqlLive, { timeout: "60 seconds", excludeTestServices: true })("a transaction left open by a stopped process", (it) => {
  it.effect("gives up its row locks after the runners' lease; its own writes are not committed", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE frozen_claims (id int PRIMARY KEY, claimed_by text)`
      yield* sql`INSERT INTO frozen_claims VALUES (1, NULL)`
      const claim = sql`SELECT id FROM frozen_claims FOR UPDATE SKIP LOCKED`.pipe(idRows, Effect.orDie)
      // The stopped process: its claim taken, then nothing sent for longer than the lease.
      const stopped = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT id FROM frozen_claims WHERE id = 1 FOR UPDATE`
        yield* Effect.sleep(`${LEASE_SECONDS * 2} seconds`)
        yield* sql`UPDATE frozen_claims SET claimed_by = 'stopped' WHERE id = 1`
      })))
      yield* eventually(Effect.map(claim, (rows) => (rows.length === 0 ? true : undefined)), "the row claimed by the stopped process")
      const freed = Date.now()
      yield* eventually(Effect.map(claim, (rows) => (rows.length === 1 ? true : undefined)), "the row free again", LEASE_SECONDS * 1000 + 5_000)
      assert.isBelow(Date.now() - freed, LEASE_SECONDS * 1000 + 5_000)
      // Woken, its transaction fails: what it writes afterwards is not committed.
      assert.isTrue(Exit.isFailure(yield* Fiber.await(stopped)))
      const [row] = yield* sql`SELECT claimed_by FROM frozen_claims WHERE id = 1`.pipe(
        decodeRows("frozen_claims", Schema.Struct({ claimed_by: Schema.NullOr(Schema.String) }))
      )
      assert.strictEqual(row?.claimed_by, null)
      // The pool goes on with its other connections.
      assert.strictEqual((yield* sql`SELECT 1 AS id`.pipe(idRows))[0]?.id, 1)
    }))

  it.effect("a transaction that keeps sending statements outlives the lease", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const steps = yield* sql.withTransaction(Effect.gen(function*() {
        let n = 0
        for (let i = 0; i < LEASE_SECONDS * 3; i++) {
          yield* sql`SELECT pg_sleep(0.5)`
          yield* Effect.sleep("400 millis")
          n++
        }
        return n
      }))
      assert.strictEqual(steps, LEASE_SECONDS * 3)
    }))
})
