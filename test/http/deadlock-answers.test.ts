import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Fiber, Redacted } from "effect"
import pg from "pg"
import { partitionDays, partitionOf, splitFuture } from "../../runtime/run/Partitions.js"
import { adminToken } from "../support/Fixtures.js"
import { RunPlatformLive } from "../support/RunPlatform.js"
import { TestPlatform, withPlatformDb } from "../support/TestPlatform.js"
import { createWorkflow, getWorkflow, publish, respondNode, saveDag } from "../support/Workflows.js"

/** A connection of the test's own, beside the platform's pool, closed with the test's scope. */
const otherConnection = Effect.gen(function*() {
  const platform = yield* TestPlatform
  const other = new pg.Client({ connectionString: platform.databaseUrl })
  yield* Effect.acquireRelease(Effect.promise(() => other.connect()), () => Effect.promise(() => other.end()))
  return (text: string, values?: ReadonlyArray<unknown>) => Effect.promise(() => other.query(text, values === undefined ? undefined : [...values]))
})

/** An effect of Partitions.ts on the platform's database. */
const onDb = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.flatMap(TestPlatform, (platform) => effect.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(platform.databaseUrl) })), Effect.orDie))

const DAY = 86_400_000

/** Polls the platform's database every 10 ms, for up to `tries` times, until `query` (a count) is above 0. */
const until = (query: string, pid: number, tries: number, failure: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < tries; i++) {
      const n = yield* withPlatformDb((c) => c.query(query, [pid]).then((r) => r.rows[0].n as number))
      if (n > 0) return
      yield* Effect.sleep("10 millis")
    }
    assert.fail(failure)
  })

/** Waits until some backend other than `pid` waits for a lock. */
const someoneWaits = (pid: number) =>
  until(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> $1 AND datname = current_database()",
    pid,
    200,
    "nothing waited for a lock"
  )

/**
 * Waits until a backend waits for a lock that `pid` holds: that wait lasts until `pid`'s
 * transaction ends, so it began before anything `pid` asks for next (a backend seen waiting for
 * some other lock may stop and start waiting again later, and its deadlock check run after ours).
 */
const blockedBy = (pid: number) =>
  until("SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", pid, 500, "nothing waited for the test's transaction")

// Transactions that PostgreSQL gives up as a deadlock's victim. Seen in the suite at midnight UTC,
// when the day's partitions are split off; here the other side of the deadlock is a transaction of
// the test's own, taking the same two rows in the other order. PostgreSQL breaks the cycle after
// deadlock_timeout (1 s) by rolling back the transaction that waited first, the platform's.
layer(RunPlatformLive(), { excludeTestServices: true, timeout: "60 seconds" })("requests under a deadlock", (it) => {
  it.effect("the publish that loses a deadlock is rolled back and tried again: 200, the other transaction commits", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      assert.strictEqual((yield* saveDag(token, w.id, { nodes: [respondNode("a")], edges: [] })).status, 200)
      const query = yield* otherConnection
      const pid = (yield* query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number
      // The other transaction holds the versions first; the publish takes the AI Employee's row, then waits for them.
      yield* query("BEGIN")
      yield* query("SELECT 1 FROM workflow_versions WHERE workflow_id = $1 FOR UPDATE", [w.id])
      const publishing = yield* Effect.fork(publish(token, w.id))
      // Once the publish waits for this transaction, it waits first, so its deadlock check runs first
      // and it is the victim (a fixed pause let a slow publish start waiting after this side).
      yield* blockedBy(pid)
      // Now it asks for the row the publish holds: a cycle.
      yield* query("UPDATE workflows SET updated_at = updated_at WHERE id = $1", [w.id])
      yield* query("COMMIT")
      const published = yield* Fiber.join(publishing)
      assert.strictEqual(published.status, 200, published.text)
      assert.strictEqual(published.body.status ?? "published", "published")
    }).pipe(Effect.scoped))

  it.effect("any other request that loses a deadlock is 503 UNAVAILABLE with Retry-After, saved nothing, and passes when sent again", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      assert.strictEqual((yield* saveDag(token, w.id, { nodes: [respondNode("a")], edges: [] })).status, 200)
      const before = yield* getWorkflow(token, w.id)
      const next = Number(before.latest_version) + 1
      const query = yield* otherConnection
      const pid = (yield* query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number
      // The other transaction writes the version number the save is about to write. Its foreign key
      // check is off, so it does not share-lock the AI Employee's row and the save can take it.
      yield* query("BEGIN")
      yield* query("SET LOCAL session_replication_role = replica")
      yield* query(
        "INSERT INTO workflow_versions (workflow_id, tenant_id, number, dag_definition) SELECT id, tenant_id, $2, '{}'::jsonb FROM workflows WHERE id = $1",
        [w.id, next]
      )
      const dag = { nodes: [respondNode("a"), respondNode("b")], edges: [{ from: "a", to: "b" }] }
      const saving = yield* Effect.fork(saveDag(token, w.id, dag))
      yield* blockedBy(pid)
      // The save holds the AI Employee's row and waits for that version number; now the other asks for the row.
      yield* query("UPDATE workflows SET latest_version = $2 WHERE id = $1", [w.id, next])
      yield* query("COMMIT")
      const saved = yield* Fiber.join(saving)
      assert.strictEqual(saved.status, 503, saved.text)
      assert.strictEqual(saved.body.code, "UNAVAILABLE")
      assert.match(String(saved.body.message), /concurrent change/)
      assert.strictEqual(saved.headers.get("retry-after"), "1")
      const after = yield* getWorkflow(token, w.id)
      assert.deepStrictEqual(after.dag_definition, before.dag_definition)
      const again = yield* saveDag(token, w.id, dag)
      assert.strictEqual(again.status, 200, again.text)
      assert.strictEqual(again.body.latest_version, next + 1)
    }).pipe(Effect.scoped))

  it.effect("the day's partition split takes its locks before anything else: a request that wrote the AI Employee and then reads its runs is not a deadlock's victim", () =>
    Effect.gen(function*() {
      const token = yield* adminToken
      const w = yield* createWorkflow(token)
      const query = yield* otherConnection
      const pid = (yield* query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number
      // This request's deadlock check runs after 100 ms (the default is 1 s): a split that took its
      // locks one by one (the run tables, then the AI Employees' table their foreign keys reference)
      // closed a cycle with it, and it was the one failed.
      yield* query("SET deadlock_timeout = '100ms'")
      yield* query("BEGIN")
      yield* query("UPDATE workflows SET updated_at = updated_at WHERE id = $1", [w.id])
      const day = ((yield* onDb(partitionDays)).at(-1) ?? 0) + DAY
      const split = yield* Effect.fork(onDb(splitFuture(day)))
      yield* someoneWaits(pid)
      const read = yield* Effect.exit(query("SELECT count(*) FROM runs WHERE workflow_id = $1", [w.id]))
      yield* query(Exit.isSuccess(read) ? "COMMIT" : "ROLLBACK")
      assert.isTrue(Exit.isSuccess(read), `the request failed: ${String(Exit.isFailure(read) ? read.cause : "")}`)
      // The split had its locks once the request ended (or gave up within its 300 ms, and the next sweep makes the day).
      if (!(yield* Fiber.join(split))) assert.isTrue(yield* onDb(splitFuture(day)))
      const made = yield* withPlatformDb((c) =>
        c.query("SELECT to_regclass($1) IS NOT NULL AS made", [partitionOf("runs", day)]).then((r) => r.rows[0].made as boolean)
      )
      assert.isTrue(made)
    }).pipe(Effect.scoped))
})
