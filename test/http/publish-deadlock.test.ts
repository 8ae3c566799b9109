import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import pg from "pg"
import { adminToken } from "../support/Fixtures.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { TestPlatform } from "../support/TestPlatform.js"
import { createWorkflow, publish, respondNode, saveDag } from "../support/Workflows.js"

// A publish that PostgreSQL gives up as a deadlock's victim is tried again, not answered 500. Seen
// in the suite at midnight UTC, when the day's partitions are split off; here the other side of
// the deadlock is a transaction of the test's own, taking the same two rows in the other order.
layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("publish under a deadlock", (it) => {
  it.effect("the publish that loses a deadlock is rolled back and tried again: 200, the other transaction commits", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const platform = yield* TestPlatform
      const w = yield* createWorkflow(token)
      assert.strictEqual((yield* saveDag(token, w.id, { nodes: [respondNode("a")], edges: [] })).status, 200)
      const other = new pg.Client({ connectionString: platform.databaseUrl })
      yield* Effect.acquireRelease(Effect.promise(() => other.connect()), () => Effect.promise(() => other.end()))
      // The other transaction holds the versions first; the publish takes the AI Employee's row, then waits for them.
      yield* Effect.promise(() => other.query("BEGIN"))
      yield* Effect.promise(() => other.query("SELECT 1 FROM workflow_versions WHERE workflow_id = $1 FOR UPDATE", [w.id]))
      const publishing = yield* Effect.fork(publish(token, w.id))
      yield* Effect.sleep("300 millis")
      // Now it asks for the row the publish holds: a cycle, which PostgreSQL breaks after deadlock_timeout
      // (1 s) by rolling back the transaction that waited first, the publish's.
      yield* Effect.promise(() => other.query("UPDATE workflows SET updated_at = updated_at WHERE id = $1", [w.id]))
      yield* Effect.promise(() => other.query("COMMIT"))
      const published = yield* Fiber.join(publishing)
      assert.strictEqual(published.status, 200, published.text)
      assert.strictEqual(published.body.status ?? "published", "published")
    }).pipe(Effect.scoped))
})
