import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { assert, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import type pg from "pg"
import { uuidV7, uuidV7Floor, uuidV7Time } from "../../platform/TimedId.js"
import { DAYS_AHEAD, dayStart, ensureAhead, partitionDays, partitionOf, splitLow } from "../../runtime/run/Partitions.js"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { readStream, startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { TestPlatform, withPlatformDb } from "../support/TestPlatform.js"
import { respondNode, simpleDag } from "../support/Workflows.js"

// Issue 38, point 1: the run tables partitioned by day on the run's id (runtime/run/Partitions.ts).

const DAY = 86_400_000

/** An effect of Partitions.ts on the platform's database. */
const onDb = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.flatMap(TestPlatform, (platform) => effect.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(platform.databaseUrl) })), Effect.orDie))

const partitionOfRow = (table: string, where: string, value: string) =>
  withPlatformDb((c) =>
    c.query(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE ${where} = $1`, [value]).then((r) => r.rows.map((x) => x.p as string))
  )

/** Copies of `runId`'s rows (run, steps, events), each under its id, ended that many days ago, in one transaction. */
const copyRuns = (runId: string, copies: ReadonlyArray<{ readonly id: string; readonly endedDaysAgo: number; readonly status?: string }>) =>
  withPlatformDb(async (c) => {
    await c.query("BEGIN")
    for (const { endedDaysAgo, id, status = "completed" } of copies) await copyRun(c, runId, id, endedDaysAgo, status)
    await c.query("COMMIT")
  })

const copyRun = async (c: pg.Client, runId: string, id: string, endedDaysAgo: number, status: string) => {
  await c.query(
    `INSERT INTO runs SELECT (jsonb_populate_record(r, jsonb_build_object('id', $2::uuid, 'status', $4::text,
         'finished_at', CASE WHEN $4 = 'paused' THEN NULL ELSE now() - make_interval(days => $3) END))).* FROM runs r WHERE r.id = $1`,
    [runId, id, endedDaysAgo, status]
  )
  await c.query(
    `INSERT INTO run_steps SELECT (jsonb_populate_record(s, jsonb_build_object('id', gen_random_uuid(), 'run_id', $2::uuid))).*
      FROM run_steps s WHERE s.run_id = $1`,
    [runId, id]
  )
  await c.query(`INSERT INTO run_events SELECT (jsonb_populate_record(e, jsonb_build_object('run_id', $2::uuid))).* FROM run_events e WHERE e.run_id = $1`, [
    runId,
    id
  ])
}

const count = (table: string, runId: string) =>
  withPlatformDb((c) =>
    c.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${table === "runs" ? "id" : "run_id"} = $1`, [runId]).then((r) => r.rows[0].n as number)
  )

layer(RunPlatformLive({ RETENTION_SWEEP_SECONDS: "1" }), { excludeTestServices: true, timeout: "120 seconds" })("partitioned run history", (it) => {
  it.effect("runs get time-ordered ids and live in their day's partition, with every row of their journal, across a day's end", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "done" }))
      const today = dayStart(Date.now())
      const days = yield* onDb(partitionDays)
      assert.includeMembers(days, [today, today + DAYS_AHEAD * DAY])
      const approval = yield* publishedWorkflow(admin, {
        nodes: [{ ...respondNode("ask"), hitl: { type: "approval", prompt: "Go?", assignee: { role: "builder" } } }, respondNode("after")],
        edges: [{ from: "ask", to: "after" }]
      })
      const run = (yield* startRun(admin, approval, {})).body.id as string
      assert.closeTo(uuidV7Time(run)!, Date.now(), 60_000)
      yield* waitForStatus(admin, run, ["paused"])
      // Days pass: partitions are made ahead of a later day (rows of that day go to it); the run resumes in its own.
      yield* eventually(
        Effect.zipRight(onDb(ensureAhead(Date.now() + 3 * DAY)), onDb(partitionDays)).pipe(
          Effect.map((days) => (days.includes(today + (DAYS_AHEAD + 3) * DAY) ? true : undefined))
        ),
        "the days ahead"
      )
      assert.include(yield* onDb(partitionDays), today + (DAYS_AHEAD + 3) * DAY)
      // The records other services keep of each use (chat turns, eval results, executions, tool calls) are partitioned
      // the same way, on version-7 ids, and get their days with the run tables.
      const runDays = yield* onDb(partitionDays)
      for (const table of ["chat_messages", "eval_results", "integration_executions", "mcp_tool_calls"]) {
        const parts = yield* withPlatformDb((c) =>
          c.query("SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass", [table])
            .then((r) => r.rows.map((x) => x.name as string))
        )
        assert.includeMembers(parts, [...runDays.map((day) => partitionOf(table, day)), `${table}_low`, `${table}_future`, `${table}_high`], table)
      }
      const request = yield* eventually(
        http("GET", "/api/v1/workflow/hitl/pending?page_size=100", { token: admin }).pipe(
          Effect.map((r) => r.body.items.find((i: { run_id: string }) => i.run_id === run))
        ),
        "the HITL request"
      )
      assert.strictEqual((yield* http("GET", `/api/v1/workflow/hitl/${request.request_id}`, { token: admin })).status, 200)
      assert.strictEqual(
        (yield* http("POST", `/api/v1/workflow/hitl/${request.request_id}/respond`, { token: admin, body: { response: { approved: true } } })).status,
        200
      )
      yield* waitForStatus(admin, run, ["completed"])
      const own = partitionOf("runs", today)
      // The run's spans are in its journal's records (run_events), with the events they ended with.
      for (const [table, where] of [["runs", "id"], ["run_steps", "run_id"], ["run_events", "run_id"], ["hitl_requests", "run_id"]] as const) {
        const parts = yield* partitionOfRow(table, where, run)
        assert.isAbove(parts.length, 0, table)
        assert.deepStrictEqual([...new Set(parts)], [own.replace("runs", table)], table)
      }
      const stream = yield* readStream(admin, run)
      const ids = stream.events.map((e) => e.id)
      assert.deepStrictEqual(ids, [...ids].sort((a, b) => a - b))
      assert.includeMembers(stream.events.map((e) => e.data.type), ["run_paused", "run_resumed", "run_completed"])
      // A future day's id goes to that day's partition once it exists.
      const later = uuidV7(Date.now() + (DAYS_AHEAD + 2) * DAY)
      yield* copyRuns(run, [{ id: later, endedDaysAgo: 0 }])
      assert.deepStrictEqual(yield* partitionOfRow("runs", "id", later), [partitionOf("runs", today + (DAYS_AHEAD + 2) * DAY)])
      yield* withPlatformDb((c) => c.query("DELETE FROM runs WHERE id = $1", [later]))
    }))

  it.effect("a day whose runs all expired goes whole, its range joining _low; a day with a paused or held run stays", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "done" }))
      const workflow = yield* publishedWorkflow(admin, simpleDag())
      const template = (yield* startRun(admin, workflow, { message: "x" })).body.id as string
      yield* waitForStatus(admin, template, ["completed"])
      const today = dayStart(Date.now())
      // While the history is written, a retention the sweep cannot act on.
      const me = (yield* http("GET", "/api/v1/auth/users/me", { token: admin })).body.user
      const retention = (days: number) => http("PATCH", `/api/v1/auth/tenants/${me.tenant_id}/settings`, { token: admin, body: { run_retention_days: days } })
      assert.strictEqual((yield* retention(10)).status, 200)
      // Partitions back to 5 days ago (taken from _low a day at a time: each split is DDL on every run
      // table, so the days are few, under a retention of 2 days).
      for (let day = today - DAY; day >= today - 5 * DAY; day -= DAY) {
        yield* eventually(onDb(splitLow(day)).pipe(Effect.map((done) => (done ? true : undefined))), "a day taken from _low")
      }
      const on = (daysAgo: number, n: number) => uuidV7(today - daysAgo * DAY + 3_600_000 + n)
      const expired = [on(5, 1), on(5, 2)]
      const paused = on(4, 1)
      const beside = on(4, 2)
      const held = on(3, 1)
      assert.isAbove(yield* count("run_events", template), 0)
      yield* copyRuns(template, [
        ...expired.map((id) => ({ id, endedDaysAgo: 5 })),
        { id: paused, endedDaysAgo: 4, status: "paused" },
        { id: beside, endedDaysAgo: 4 },
        { id: held, endedDaysAgo: 3 }
      ])
      yield* withPlatformDb((c) => c.query("UPDATE runs SET retention_hold = true WHERE id = $1", [held]))
      assert.strictEqual((yield* retention(2)).status, 200)

      yield* eventually(
        onDb(partitionDays).pipe(Effect.map((days) => (days[0] === today - 4 * DAY ? true : undefined))),
        "the day 5 days ago to be dropped"
      )
      for (const id of expired) {
        for (const table of ["runs", "run_events", "run_steps"]) {
          yield* eventually(count(table, id).pipe(Effect.map((n) => (n === 0 ? true : undefined))), `${table} of an expired run to go`)
        }
      }
      // Its range belongs to _low now: an id of that day still has a partition.
      const bounds = yield* withPlatformDb((c) =>
        c.query("SELECT pg_get_expr(relpartbound, oid) AS b FROM pg_class WHERE relname = 'runs_low'").then((r) => r.rows[0].b as string)
      )
      assert.include(bounds, uuidV7Floor(today - 4 * DAY))
      // The paused run keeps its day; the finished run beside it goes row by row (a day past its retention).
      yield* eventually(count("runs", beside).pipe(Effect.map((n) => (n === 0 ? true : undefined))), "the run beside the paused one to go")
      assert.strictEqual(yield* count("runs", paused), 1)
      assert.strictEqual(yield* count("runs", held), 1)
      assert.include(yield* onDb(partitionDays), today - 4 * DAY)
      const audit = yield* http("GET", "/api/v1/auth/audit-events?page_size=100", { token: admin })
      const expiries = audit.body.items.filter((e: { action: string }) => e.action === "retention.expired")
      assert.isTrue(expiries.some((e: { details: { runs: number } }) => e.details.runs >= 2), JSON.stringify(expiries))
    }))
})
