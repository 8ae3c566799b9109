import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import type pg from "pg"
import { memoized } from "./Memo.js"

/** The `pg` pool behind the SQL client (Database.ts). */
export class PgPool extends Context.Tag("PgPool")<PgPool, pg.Pool>() {}

/**
 * A second, small pool whose sessions always use a statement's generic plan
 * (`plan_cache_mode = force_generic_plan`; Database.ts): see `PreparedSql.queryGeneric`.
 */
export class GenericPlanPool extends Context.Tag("GenericPlanPool")<GenericPlanPool, pg.Pool>() {}

const MAX_NAMES = 1_000

/**
 * Statements that run on every step of every run (the journal's load and commits) as named
 * prepared statements: each pooled connection parses and plans a text once, not per call
 * (measured: about 40% of PostgreSQL's CPU per run). Inside a transaction the statement runs on
 * the transaction's connection, unprepared. Neither way makes a span: these statements are the
 * run's own bookkeeping, not its work, and a run's trace shows its nodes.
 */
export class PreparedSql extends Context.Tag("PreparedSql")<PreparedSql, {
  readonly query: <A extends object>(text: string, values: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, SqlError>
  /**
   * As `query`, on sessions that always use the statement's generic plan, planned once per
   * connection. For statements whose generic plan is right for any values, which PostgreSQL
   * would otherwise plan anew at every execution: over a partitioned table a generic plan's
   * estimate counts every partition (pruning happens at execution), so the planner keeps
   * choosing a custom plan (measured: a lone run's commit 0.8 ms, 0.45 with its generic plan).
   */
  readonly queryGeneric: <A extends object>(text: string, values: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, SqlError>
}>() {
  static readonly layer = Layer.effect(
    PreparedSql,
    Effect.gen(function*() {
      const pool = yield* PgPool
      const genericPool = yield* GenericPlanPool
      // A statement's name is derived from its text: a name must never stand for two texts.
      const nameOf = memoized(MAX_NAMES, (text) => `bp_${createHash("sha1").update(text).digest("base64url")}`)
      const on = (target: pg.Pool) => <A extends object>(text: string, values: ReadonlyArray<unknown>) =>
        Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
          Option.isSome(transaction)
            ? transaction.value[0].execute(text, values, undefined)
            : Effect.async<ReadonlyArray<A>, SqlError>((resume) => {
              target.query<A>({ name: nameOf(text), text, values: [...values] }, (error, result) => {
                resume(error ? Effect.fail(new SqlError({ cause: error, message: "Failed to execute statement" })) : Effect.succeed(result.rows))
              })
            }))
      return { query: on(pool), queryGeneric: on(genericPool) }
    })
  )
}
