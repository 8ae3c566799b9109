import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { AppConfig } from "./Config.js"
import { connectRedis, RedisConnection } from "./Redis.js"

const REDIS_RETRY_MS = 5000
const LIMITS_AWAY = "Redis is unavailable: rate limits and sign-in throttling are not enforced until it is back"

export interface RateDecision {
  readonly allowed: boolean
  readonly count: number
  readonly retryAfterSeconds: number
}

export interface RateLimiterShape {
  /** Counts one hit in a fixed window and says whether it stays within `limit`. */
  readonly hit: (key: string, limit: number, windowSeconds: number) => Effect.Effect<RateDecision>
  /** Reads the window without counting. */
  readonly peek: (key: string, limit: number) => Effect.Effect<RateDecision>
  readonly reset: (key: string) => Effect.Effect<void>
}

/**
 * Fixed-window counters: Redis when `REDIS_URL` is set, PostgreSQL (an unlogged table) when split
 * processes share no Redis (`EVENT_BUS=postgres`), else in-process.
 */
export class RateLimiter extends Context.Tag("RateLimiter")<RateLimiter, RateLimiterShape>() {
  static readonly memory: Effect.Effect<RateLimiterShape> = Effect.sync(() => {
    const windows = new Map<string, { count: number; resetAt: number }>()
    const current = (key: string) => {
      const now = Date.now()
      const entry = windows.get(key)
      if (entry === undefined || entry.resetAt <= now) {
        windows.delete(key)
        return undefined
      }
      return entry
    }
    const decide = (count: number, limit: number, resetAt: number): RateDecision => ({
      allowed: count <= limit,
      count,
      retryAfterSeconds: Math.max(1, Math.ceil((resetAt - Date.now()) / 1000))
    })
    return {
      hit: (key, limit, windowSeconds) =>
        Effect.sync(() => {
          const entry = current(key) ?? { count: 0, resetAt: Date.now() + windowSeconds * 1000 }
          entry.count += 1
          windows.set(key, entry)
          if (windows.size > 100_000) {
            for (const k of windows.keys()) if (current(k) === undefined) windows.delete(k)
          }
          return decide(entry.count, limit, entry.resetAt)
        }),
      peek: (key, limit) =>
        Effect.sync(() => {
          const entry = current(key)
          return entry === undefined
            ? { allowed: true, count: 0, retryAfterSeconds: 0 }
            : { ...decide(entry.count, limit, entry.resetAt), allowed: entry.count < limit }
        }),
      reset: (key) => Effect.sync(() => void windows.delete(key))
    }
  })

  static readonly redis = (url: string, prefix: string) =>
    Effect.gen(function*() {
      const client = yield* connectRedis(url)
      const k = (key: string) => `${prefix}rl:${key}`
      // While Redis is away limits are not enforced (fail open, a warning once a minute): an
      // outage of the counter store does not take sign-in, webhooks or the public app down with it.
      // After a failure Redis is left alone for REDIS_RETRY_MS, so that a request making several
      // checks against a silent Redis waits for one command timeout at most, not one per check.
      let awayUntil = 0
      const failOpen = <A>(fallback: A) => (effect: Effect.Effect<A, unknown>) =>
        Effect.suspend(() =>
          Date.now() < awayUntil
            ? Effect.succeed(fallback)
            : effect.pipe(Effect.catchAll(() => {
              awayUntil = Date.now() + REDIS_RETRY_MS
              return Effect.as(Effect.logWarning(LIMITS_AWAY), fallback)
            }))
        )
      const open: RateDecision = { allowed: true, count: 0, retryAfterSeconds: 0 }
      const shape: RateLimiterShape = {
        hit: (key, limit, windowSeconds) =>
          Effect.tryPromise(async () => {
            const result = await client.multi().incr(k(key)).pexpire(k(key), windowSeconds * 1000, "NX").pttl(k(key)).exec()
            const count = Number(result?.[0]?.[1] ?? 0)
            const ttl = Number(result?.[2]?.[1] ?? windowSeconds * 1000)
            return { allowed: count <= limit, count, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) }
          }).pipe(failOpen(open)),
        peek: (key, limit) =>
          Effect.tryPromise(async () => {
            const [count, ttl] = await Promise.all([client.get(k(key)), client.pttl(k(key))])
            const n = count === null ? 0 : Number(count)
            return { allowed: n < limit, count: n, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) }
          }).pipe(failOpen(open)),
        reset: (key) => Effect.tryPromise(() => client.del(k(key))).pipe(Effect.asVoid, failOpen<void>(undefined))
      }
      return shape
    })

  /** Windows in the unlogged table `rate_limit_windows`; expired rows are swept once a minute. */
  static readonly postgres = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const decision = (limit: number, strict: boolean) => (rows: ReadonlyArray<{ count: number; ttl_ms: number }>): RateDecision => {
      const count = rows[0]?.count ?? 0
      return {
        allowed: strict ? count <= limit : count < limit,
        count,
        retryAfterSeconds: rows[0] === undefined ? 0 : Math.max(1, Math.ceil(rows[0].ttl_ms / 1000))
      }
    }
    yield* sql`DELETE FROM rate_limit_windows WHERE reset_at <= now()`.pipe(
      Effect.catchAll(() => Effect.void),
      Effect.delay("1 minute"),
      Effect.forever,
      Effect.forkScoped
    )
    const shape: RateLimiterShape = {
      hit: (key, limit, windowSeconds) =>
        // Hot path, typed by assertion (not decoded): every rate-limited request counts here.
        sql<{ count: number; ttl_ms: number }>`
          INSERT INTO rate_limit_windows AS w (key, count, reset_at)
          VALUES (${key}, 1, now() + make_interval(secs => ${windowSeconds}))
          ON CONFLICT (key) DO UPDATE SET
            count = CASE WHEN w.reset_at <= now() THEN 1 ELSE w.count + 1 END,
            reset_at = CASE WHEN w.reset_at <= now() THEN now() + make_interval(secs => ${windowSeconds}) ELSE w.reset_at END
          RETURNING count, (extract(epoch FROM reset_at - now()) * 1000)::float8 AS ttl_ms`.pipe(
          Effect.map(decision(limit, true)),
          Effect.orDie
        ),
      peek: (key, limit) =>
        // Hot path, typed by assertion (not decoded): the login throttle peeks on every sign-in attempt.
        sql<{ count: number; ttl_ms: number }>`
          SELECT count, (extract(epoch FROM reset_at - now()) * 1000)::float8 AS ttl_ms
          FROM rate_limit_windows WHERE key = ${key} AND reset_at > now()`.pipe(
          Effect.map(decision(limit, false)),
          Effect.map((d) => d.count === 0 ? { allowed: true, count: 0, retryAfterSeconds: 0 } : d),
          Effect.orDie
        ),
      reset: (key) => sql`DELETE FROM rate_limit_windows WHERE key = ${key}`.pipe(Effect.asVoid, Effect.orDie)
    }
    return shape
  })

  static readonly layer = Layer.scoped(
    RateLimiter,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const redis = yield* RedisConnection
      if (Option.isSome(redis)) return yield* RateLimiter.redis(redis.value.url, redis.value.prefix)
      return config.eventBus === "postgres" ? yield* RateLimiter.postgres : yield* RateLimiter.memory
    })
  )
}
