import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, FastCheck, Fiber, Metric, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { journalGroupFallbacks, journalGroupSize } from "../../otel/Metrics.js"
import { Batch } from "../../runtime/run/Batch.js"
import { Journal } from "../../runtime/run/Journal.js"
import { runRecord } from "../support/KernelHarness.js"
import { pgJournalBackend, PgJournalLive } from "../support/PgJournal.js"

// Issue 37: the journal's group commit, over PostgreSQL. Runs commit side by side at random
// moments; some commits wake other runs of the same scenario (a group must not touch a run twice);
// some carry a constraint violation (a HITL request id already taken). Whatever the grouping, each
// commit is written whole or not at all, a faulty one fails alone, and what was acknowledged is there.

interface Plan {
  readonly commits: number
  readonly delays: ReadonlyArray<number>
  /** The commit that carries the violation (undefined when none does). */
  readonly faultyAt: number | undefined
  /** Per commit: the index of another run it wakes (undefined when it wakes none). */
  readonly wakes: ReadonlyArray<number | undefined>
}

const planOf = (runs: number) =>
  FastCheck.record({
    commits: FastCheck.integer({ min: 1, max: 4 }),
    delays: FastCheck.array(FastCheck.integer({ min: 0, max: 4 }), { minLength: 4, maxLength: 4 }),
    faultyAt: FastCheck.option(FastCheck.integer({ min: 0, max: 3 }), { freq: 6, nil: undefined }),
    wakes: FastCheck.array(FastCheck.option(FastCheck.integer({ min: 0, max: runs - 1 }), { freq: 2, nil: undefined }), { minLength: 4, maxLength: 4 })
  })
const scenarios = FastCheck.integer({ min: 2, max: 24 }).chain((runs) => FastCheck.array(planOf(runs), { minLength: runs, maxLength: runs }))

const counts = Schema.Struct({ steps: Schema.Number, events: Schema.Number, hitl: Schema.Number, status: Schema.String, wake_seq: Schema.Number })

layer(PgJournalLive, { timeout: "180 seconds", excludeTestServices: true })("group commit of the journal", (it) => {
  it.effect(
    "random arrivals, wake-ups and faulty entries: each commit whole or not at all, a faulty one alone, every acknowledged one written",
    () =>
      Effect.gen(function*() {
        const { backend, tenantId } = yield* pgJournalBackend
        const journal = yield* Journal
        const sql = yield* SqlClient.SqlClient
        // Runs of three tenants, so that groups mix tenants (and are acknowledged the least represented first).
        const tenants = [tenantId, randomUUID(), randomUUID()]
        for (const id of tenants.slice(1)) yield* sql`INSERT INTO tenants (id, name, slug) VALUES (${id}, 'Other', ${`other-${id}`})`
        const groupsBefore = yield* Metric.value(journalGroupSize)

        for (const plans of FastCheck.sample(scenarios, { numRuns: Number(process.env.GC_RUNS ?? 25) })) {
          const records = plans.map((_, r) => runRecord(tenants[r % tenants.length], randomUUID()))
          yield* Effect.forEach(records, backend.insertRun, { discard: true })
          const acknowledged = records.map(() => 0)
          const failed = records.map(() => false)
          const woken = records.map(() => 0)
          yield* Effect.forEach(plans, (plan: Plan, r) =>
            Effect.gen(function*() {
              let seq = 1
              for (let i = 0; i < plan.commits; i++) {
                yield* Effect.sleep(`${plan.delays[i] ?? 0} millis`)
                const batch = new Batch()
                if (i === 0) batch.run({ from: ["pending"], to: "running" })
                if (i === plan.commits - 1) batch.run({ from: ["running"], to: "completed" })
                batch.step({
                  id: randomUUID(),
                  node_id: `n${i}`,
                  node_type: "probe",
                  node_name: null,
                  status: "completed",
                  attempt: 1,
                  position: i,
                  started: true,
                  finished: true
                })
                batch.event("step_completed", { node_id: `n${i}` }, `step_completed:n${i}`, undefined)
                const target = plan.wakes[i]
                if (target !== undefined && target !== r) batch.wake.push(records[target].id)
                if (plan.faultyAt === i) {
                  // A HITL request without a prompt: its insert violates a NOT NULL constraint.
                  batch.hitl.push({
                    id: randomUUID(),
                    workflow_id: records[r].workflow_id,
                    node_id: `h${i}`,
                    type: "approval",
                    prompt: null as unknown as string,
                    choices: null,
                    form_schema: null,
                    assignee: {}
                  })
                }
                const exit = yield* Effect.exit(journal.commit(records[r], batch, seq))
                if (Exit.isFailure(exit)) {
                  failed[r] = true
                  assert.strictEqual(plan.faultyAt, i, `only the faulty commit fails: ${Cause.pretty(exit.cause).slice(0, 500)}`)
                  return
                }
                assert.notStrictEqual(plan.faultyAt, i, "a faulty commit is never acknowledged")
                acknowledged[r] = i + 1
                if (target !== undefined && target !== r) woken[target] = (woken[target] ?? 0) + 1
                seq += batch.events.length
              }
            }), { concurrency: "unbounded", discard: true })

          for (const [r, record] of records.entries()) {
            const [row] = yield* sql`SELECT
              (SELECT count(*)::int FROM run_steps WHERE run_id = ${record.id}) AS steps,
              (SELECT count(*)::int FROM run_events WHERE run_id = ${record.id}) AS events,
              (SELECT count(*)::int FROM hitl_requests WHERE run_id = ${record.id}) AS hitl,
              (SELECT status FROM runs WHERE id = ${record.id}) AS status,
              (SELECT wake_seq::int FROM runs WHERE id = ${record.id}) AS wake_seq`.pipe(
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(counts))),
              Effect.orDie
            )
            const plan = plans[r]
            assert.strictEqual(row?.steps, acknowledged[r], `run ${r}: a step per acknowledged commit`)
            assert.strictEqual(row?.events, acknowledged[r], `run ${r}: an event per acknowledged commit`)
            assert.strictEqual(row?.hitl, 0, `run ${r}: the faulty commit wrote nothing`)
            assert.strictEqual(row?.status, acknowledged[r] === plan.commits ? "completed" : acknowledged[r] === 0 ? "pending" : "running")
            assert.strictEqual(failed[r], plan.faultyAt !== undefined && plan.faultyAt < plan.commits)
            // Two wake-ups of one run in one statement would count once: none is lost.
            assert.strictEqual(row?.wake_seq, woken[r], `run ${r}: every wake-up counted`)
          }
        }
        const groupsAfter = yield* Metric.value(journalGroupSize)
        const alone = (state: typeof groupsAfter) => state.buckets.find(([boundary]) => boundary === 1)?.[1] ?? 0
        const grouped = (groupsAfter.count - groupsBefore.count) - (alone(groupsAfter) - alone(groupsBefore))
        assert.isAbove(grouped, 0, "some statements carried several runs' commits")
      }),
    { timeout: 180_000 }
  )

  it.effect(
    "a group's connection lost mid-write: each of its commits is then written once, none acknowledged before it is written",
    () =>
      Effect.gen(function*() {
        const { backend, tenantId } = yield* pgJournalBackend
        const journal = yield* Journal
        const sql = yield* SqlClient.SqlClient
        const records = Array.from({ length: 8 }, () => runRecord(tenantId, randomUUID()))
        yield* Effect.forEach(records, backend.insertRun, { discard: true })
        const eventsOf = (runId: string) =>
          sql`SELECT count(*)::int AS n FROM run_events WHERE run_id = ${runId}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Number })))),
            Effect.map((rows) => rows[0]?.n ?? 0),
            Effect.orDie
          )
        /** Holds row locks on these runs until released. */
        const hold = (ids: ReadonlyArray<string>) =>
          Effect.gen(function*() {
            const held = yield* Deferred.make<void>()
            const release = yield* Deferred.make<void>()
            const fiber = yield* sql.withTransaction(
              Effect.zipRight(
                sql`SELECT id FROM runs WHERE id IN ${sql.in(ids)} FOR UPDATE`,
                Effect.zipRight(Deferred.succeed(held, undefined), Deferred.await(release))
              )
            ).pipe(Effect.orDie, Effect.fork)
            yield* Deferred.await(held)
            return Effect.zipRight(Deferred.succeed(release, undefined), Fiber.join(fiber))
          })
        const commitOf = (r: number) => {
          const batch = new Batch().run({ from: ["pending"], to: "running" }).event("step_started", { node_id: "a" }, "step_started:a", undefined)
          // Acknowledged means committed: the commit is already there when the run hears back.
          return journal.commit(records[r], batch, 1).pipe(Effect.zipRight(eventsOf(records[r].id)), Effect.tap((n) => assert.strictEqual(n, 1)))
        }
        const fallbacks = (yield* Metric.value(journalGroupFallbacks)).count

        // Both writers busy (each on a run whose row is locked), the group's first run locked too.
        const releaseWriters = yield* hold([records[0].id, records[1].id])
        const releaseGroup = yield* hold([records[2].id])
        const busy = [yield* Effect.fork(commitOf(0))]
        yield* Effect.sleep("200 millis")
        busy.push(yield* Effect.fork(commitOf(1)))
        yield* Effect.sleep("200 millis")
        const group = yield* Effect.forEach([2, 3, 4, 5, 6, 7], (r) => Effect.fork(commitOf(r)))
        yield* Effect.sleep("200 millis")
        yield* releaseWriters
        // The group's statement waits on the locked run: lose its connection (as a crash of the database side would).
        let killed = 0
        for (let i = 0; i < 100 && killed === 0; i++) {
          yield* Effect.sleep("50 millis")
          const rows = yield* sql`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
          WHERE query LIKE 'WITH en AS%' AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`.pipe(Effect.orDie)
          killed = rows.length
        }
        assert.strictEqual(killed, 1, "the group's statement was in flight")
        yield* releaseGroup
        for (const fiber of [...busy, ...group]) assert.strictEqual(yield* Fiber.join(fiber), 1)
        for (const record of records) assert.strictEqual(yield* eventsOf(record.id), 1, "each commit written once")
        assert.isAbove((yield* Metric.value(journalGroupFallbacks)).count, fallbacks)
      }),
    { timeout: 60_000 }
  )
})
