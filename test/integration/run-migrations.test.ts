import { PgClient } from "@effect/sql-pg"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { readFileSync } from "node:fs"
import pg from "pg"
import { migrateAll } from "../../services/gateway/Migrations.js"
import { testDatabase } from "../support/TestDatabase.js"

// Issue 36, point 6: the run tables live in one migration set (runtime/run/migrations). A new
// database, one left by the release before the move, and one from before the kernel's set
// existed all end with the same run tables, column for column, index for index.

const query = (url: string, text: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query(text)).rows as Array<Record<string, unknown>>
    } finally {
      await client.end()
    }
  })

const restore = (url: string, fixture: string) =>
  query(url, readFileSync(new URL(`../fixtures/${fixture}`, import.meta.url), "utf8").split("\n").filter((line) => !line.startsWith("\\")).join("\n"))

const migrate = (url: string) => migrateAll.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })), Effect.orDie)

const RUN_TABLES = "('runs', 'run_steps', 'run_events', 'run_spans', 'hitl_requests', 'run_waits')"

/** The run tables as the catalog describes them, in an order that does not depend on history. */
const runTablesOf = (url: string) =>
  Effect.all({
    columns: query(
      url,
      `SELECT table_name, column_name, data_type, column_default, is_nullable FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name IN ${RUN_TABLES} ORDER BY table_name, column_name`
    ),
    indexes: query(url, `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ${RUN_TABLES} ORDER BY indexname`),
    constraints: query(
      url,
      `SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text IN ${RUN_TABLES} ORDER BY 1, 2`
    ),
    triggers: query(url, `SELECT tgname, tgrelid::regclass::text AS table_name FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1, 2`)
  })

layer(Layer.empty, { timeout: "120 seconds" })("the run tables' one migration set", (it) => {
  it.scoped("a new database, the release before the move and the engine before the kernel's set all converge on the same run tables", () =>
    Effect.gen(function*() {
      const fresh = yield* testDatabase
      yield* migrate(fresh.url)
      const expected = yield* runTablesOf(fresh.url)
      assert.isAbove(expected.columns.length, 80)
      assert.deepInclude(expected.triggers, { tgname: "runs_journal_cleanup", table_name: "runs" })
      // No table of the workflow service's set is a run table any more.
      const workflowSet = yield* query(fresh.url, "SELECT name FROM workflow_migrations ORDER BY migration_id")
      assert.strictEqual(workflowSet.length, 14)

      for (const fixture of ["schema-36.sql", "old-kernel.sql"]) {
        const db = yield* testDatabase
        yield* restore(db.url, fixture)
        yield* migrate(db.url)
        assert.deepStrictEqual(yield* runTablesOf(db.url), expected, fixture)
      }
    }))
})
