import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { DatabaseLive } from "../../platform/Database.js"
import { PreparedSql } from "../../platform/PreparedSql.js"
import { testDatabase } from "../support/TestDatabase.js"
import { configLayer } from "../support/UnitLayers.js"

const SqlLive = Layer.unwrapScoped(
  Effect.map(testDatabase, (db) => DatabaseLive.pipe(Layer.provide(configLayer({ DATABASE_URL: db.url }))))
).pipe(Layer.orDie)

const planMode = (run: PreparedSql["Type"]["query"]) =>
  Effect.map(run<{ plan_cache_mode: string }>("SELECT current_setting('plan_cache_mode') AS plan_cache_mode", []), (rows) => rows[0].plan_cache_mode)

// A lone run's commit and run starts go through queryGeneric (runtime/run/CommitSql.ts, RunInserts.ts):
// its sessions must use generic plans, the main pool's PostgreSQL's own choice.
layer(SqlLive, { timeout: "60 seconds", excludeTestServices: true })("the generic-plan pool", (it) => {
  it.effect("its sessions always use a statement's generic plan; the main pool's sessions choose", () =>
    Effect.gen(function*() {
      const sql = yield* PreparedSql
      // Several at once, so that more than one connection of each pool answers.
      const generic = yield* Effect.all(Array.from({ length: 4 }, () => planMode(sql.queryGeneric)), { concurrency: "unbounded" })
      const main = yield* Effect.all(Array.from({ length: 4 }, () => planMode(sql.query)), { concurrency: "unbounded" })
      assert.deepStrictEqual(generic, Array.from({ length: 4 }, () => "force_generic_plan"))
      assert.deepStrictEqual(main, Array.from({ length: 4 }, () => "auto"))
    }).pipe(Effect.orDie))
})
