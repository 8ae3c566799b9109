import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { EventBus, type EventBusShape } from "../../platform/EventBus.js"
import { RateLimiter, type RateLimiterShape } from "../../platform/RateLimiter.js"
import { redisAvailable, testRedisUrl } from "../support/TestServices.js"
import { TestSqlLive } from "../support/TestSql.js"

const REDIS = testRedisUrl
const prefix = () => `bptest:${randomUUID()}:`

/** Runs `make` on a migrated database of its own that lives as long as the test's scope. */
const onPostgres = <A>(
  make: Effect.Effect<A, never, import("@effect/sql-pg").PgClient.PgClient | import("@effect/sql").SqlClient.SqlClient | import("effect").Scope.Scope>
) => Effect.flatMap(Layer.build(TestSqlLive), (context) => Effect.provide(make, context))

const limiterContract = (name: string, make: Effect.Effect<RateLimiterShape, never, import("effect").Scope.Scope>, enabled = true) =>
  describe.runIf(enabled)(`RateLimiter (${name})`, () => {
    it.live("allows up to the limit in a window, then refuses with a retry time; reset clears it", () =>
      Effect.scoped(Effect.gen(function*() {
        const limiter = yield* make
        const key = randomUUID()
        for (let i = 1; i <= 3; i++) assert.isTrue((yield* limiter.hit(key, 3, 60)).allowed)
        const over = yield* limiter.hit(key, 3, 60)
        assert.isFalse(over.allowed)
        assert.isAtLeast(over.retryAfterSeconds, 1)
        assert.isAtMost(over.retryAfterSeconds, 60)
        assert.isFalse((yield* limiter.peek(key, 3)).allowed)
        yield* limiter.reset(key)
        assert.isTrue((yield* limiter.peek(key, 3)).allowed)
      })))

    it.live("a window expires", () =>
      Effect.scoped(Effect.gen(function*() {
        const limiter = yield* make
        const key = randomUUID()
        yield* limiter.hit(key, 1, 1)
        assert.isFalse((yield* limiter.hit(key, 1, 1)).allowed)
        yield* Effect.sleep("1100 millis")
        assert.isTrue((yield* limiter.hit(key, 1, 1)).allowed)
      })))

    it.live("a pace lets the rate through at once, then one more per 1/rate s, never a new burst", () =>
      Effect.scoped(Effect.gen(function*() {
        const limiter = yield* make
        const key = randomUUID()
        for (let i = 0; i < 2; i++) assert.isTrue((yield* limiter.pace(key, 2)).allowed, `start ${i}`)
        const over = yield* limiter.pace(key, 2)
        assert.isFalse(over.allowed)
        assert.strictEqual(over.retryAfterSeconds, 1)
        // Half a second later one token is back, not two (a window would still refuse until its second is out).
        yield* Effect.sleep("600 millis")
        assert.isTrue((yield* limiter.pace(key, 2)).allowed)
        assert.isFalse((yield* limiter.pace(key, 2)).allowed)
        // Keys are apart.
        assert.isTrue((yield* limiter.pace(randomUUID(), 2)).allowed)
        // Idle for a second: the whole allowance again.
        yield* Effect.sleep("1100 millis")
        for (let i = 0; i < 2; i++) assert.isTrue((yield* limiter.pace(key, 2)).allowed, `again ${i}`)
        assert.isFalse((yield* limiter.pace(key, 2)).allowed)
      })))
  })

limiterContract("in-process", RateLimiter.memory)
limiterContract("PostgreSQL", onPostgres(RateLimiter.postgres))
limiterContract("Redis", RateLimiter.redis(REDIS, prefix()), redisAvailable)

const busContract = (name: string, make: Effect.Effect<EventBusShape, never, import("effect").Scope.Scope>, enabled = true) =>
  describe.runIf(enabled)(`EventBus (${name})`, () => {
    it.live("subscribers receive messages on their channel only, in order", () =>
      Effect.scoped(Effect.gen(function*() {
        const bus = yield* make
        const fiber = yield* bus.subscribe("run-1").pipe(Stream.take(3), Stream.runCollect, Effect.fork)
        yield* Effect.sleep("100 millis")
        yield* bus.publish("run-2", "other")
        for (const m of ["a", "b", "c"]) yield* bus.publish("run-1", m)
        const got = yield* Fiber.join(fiber).pipe(Effect.timeout("5 seconds"))
        assert.deepStrictEqual(Chunk.toReadonlyArray(got), ["a", "b", "c"])
      })))
  })

busContract("in-process", EventBus.memory)
busContract("PostgreSQL LISTEN/NOTIFY", onPostgres(EventBus.postgres))
busContract("Redis", EventBus.redis(REDIS, prefix()), redisAvailable)
