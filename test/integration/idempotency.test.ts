import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Either, Layer, Option, Ref, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Idempotency } from "../../platform/Idempotency.js"
import type { Principal } from "../../schemas/Principal.js"
import { defaultTenantSettings } from "../../schemas/Tenant.js"
import { TestSqlLive } from "../support/TestSql.js"

const principal = {
  userId: randomUUID(),
  tenantId: randomUUID(),
  email: "p@example.test",
  role: "builder",
  authMethod: "jwt",
  amr: [],
  settings: defaultTenantSettings
} as unknown as Principal

const Result = Schema.Struct({ run_id: Schema.String, at: Schema.Date })

layer(Idempotency.Default.pipe(Layer.provideMerge(TestSqlLive)), { excludeTestServices: true })("Idempotency-Key store", (it) => {
  const start = (calls: Ref.Ref<number>, key: string | undefined, body: unknown) =>
    Effect.flatMap(Idempotency, (store) =>
      store.run({
        principal,
        key: Option.fromNullable(key),
        operation: "workflow.run",
        request: body,
        response: Result,
        effect: Ref.updateAndGet(calls, (n) => n + 1).pipe(
          Effect.map((n) => ({ run_id: `run-${n}`, at: new Date(1_700_000_000_000 + n) }))
        )
      }))

  it.effect("the same key and body replays the first response and runs nothing new", () =>
    Effect.gen(function*() {
      const calls = yield* Ref.make(0)
      const key = randomUUID()
      const first = yield* start(calls, key, { a: 1, b: [1, 2] })
      const again = yield* start(calls, key, { b: [1, 2], a: 1 })
      assert.deepStrictEqual(again, first)
      assert.instanceOf(again.at, Date)
      assert.strictEqual(yield* Ref.get(calls), 1)
    }))

  it.effect("the same key with a different body is 422", () =>
    Effect.gen(function*() {
      const calls = yield* Ref.make(0)
      const key = randomUUID()
      yield* start(calls, key, { a: 1 })
      const r = yield* Effect.either(start(calls, key, { a: 2 }))
      assert.isTrue(Either.isLeft(r) && r.left._tag === "Unprocessable")
      assert.strictEqual(yield* Ref.get(calls), 1)
    }))

  it.effect("no key means no deduplication; a failed first attempt can be retried", () =>
    Effect.gen(function*() {
      const calls = yield* Ref.make(0)
      yield* start(calls, undefined, {})
      yield* start(calls, undefined, {})
      assert.strictEqual(yield* Ref.get(calls), 2)
      const store = yield* Idempotency
      const key = randomUUID()
      const failed = yield* Effect.either(store.run({
        principal,
        key: Option.some(key),
        operation: "workflow.run",
        request: {},
        response: Result,
        effect: Effect.fail("boom" as const)
      }))
      assert.isTrue(Either.isLeft(failed))
      const retried = yield* start(calls, key, {})
      assert.strictEqual(retried.run_id, "run-3")
    }))

  it.effect("keys older than 24 hours are forgotten", () =>
    Effect.gen(function*() {
      const calls = yield* Ref.make(0)
      const key = randomUUID()
      yield* start(calls, key, { a: 1 })
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE idempotency_key = ${key}`
      const fresh = yield* start(calls, key, { a: 2 })
      assert.strictEqual(fresh.run_id, "run-2")
      const store = yield* Idempotency
      yield* sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE idempotency_key = ${key}`
      yield* store.purgeExpired
      const rows = yield* sql`SELECT 1 FROM idempotency_keys WHERE idempotency_key = ${key}`
      assert.strictEqual(rows.length, 0)
    }))
})
