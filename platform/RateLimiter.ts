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

export interface PaceDecision {
  readonly allowed: boolean
  /** When refused: whole seconds until one more would be allowed (at least 1). */
  readonly retryAfterSeconds: number
}

export interface RateLimiterShape {
  /** Counts one hit in a fixed window and says whether it stays within `limit`. */
  readonly hit: (key: string, limit: number, windowSeconds: number) => Effect.Effect<RateDecision>
  /**
   * A steady rate (GCRA, a token bucket of `perSecond` tokens refilled one every 1/perSecond s):
   * up to `perSecond` at once, then one every 1/perSecond s. Unlike a fixed window it never lets
   * the whole allowance through at each window's start, so refused callers that retry together
   * are let in one by one instead of in bursts.
   */
  readonly pace: (key: string, perSecond: number) => Effect.Effect<PaceDecision>
  /** Reads the window without counting. */
  readonly peek: (key: string, limit: number) => Effect.Effect<RateDecision>
  readonly reset: (key: string) => Effect.Effect<void>
}

/**
 * GCRA: one more arrival at `now` after the theoretical arrival time `arrival` (both ms), allowed
 * while it stays within `burstMs` worth of tokens (a second's by default).
 */
export const paced = (arrival: number, now: number, perSecond: number, burstMs = 1000) => {
  const next = arrival + 1000 / perSecond
  const wait = next - now - burstMs
  return wait <= 0
    ? { allowed: true, arrival: next, decision: { allowed: true, retryAfterSeconds: 0 } }
    : { allowed: false, arrival, decision: { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) } }
}

/** GCRA in Redis on the server's clock: ARGV[1] ms per token, ARGV[2] ms of tokens held at most; answers the ms to wait (0: allowed). */
const PACE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local arrival = tonumber(redis.call('GET', KEYS[1]) or now)
if arrival < now then arrival = now end
local nextArrival = arrival + tonumber(ARGV[1])
local wait = nextArrival - now - tonumber(ARGV[2])
if wait > 0 then return math.ceil(wait) end
redis.call('SET', KEYS[1], string.format('%.3f', nextArrival), 'PX', math.ceil(nextArrival - now) + 1)
return 0`

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
    const arrivals = new Map<string, number>()
    return {
      pace: (key, perSecond) =>
        Effect.sync(() => {
          const now = Date.now()
          const next = paced(Math.max(arrivals.get(key) ?? now, now), now, perSecond)
          if (next.allowed) arrivals.set(key, next.arrival)
          if (arrivals.size > 100_000) {
            for (const [k, at] of arrivals) if (at <= now) arrivals.delete(k)
          }
          return next.decision
        }),
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
        pace: (key, perSecond) =>
          Effect.tryPromise(async () => {
            const wait = Number(await client.eval(PACE_SCRIPT, 1, k(key), 1000 / perSecond, 1000))
            return wait <= 0 ? { allowed: true, retryAfterSeconds: 0 } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) }
          }).pipe(failOpen<PaceDecision>({ allowed: true, retryAfterSeconds: 0 })),
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
      pace: (key, perSecond) =>
        // The theoretical arrival time is kept in `reset_at` (a row past it is a full bucket, as the sweep assumes);
        // `count` says whether this one was allowed. Hot path, typed by assertion (not decoded): every paced run start.
        sql<{ count: number; wait_ms: number }>`
          INSERT INTO rate_limit_windows AS w (key, count, reset_at)
          VALUES (${key}, 1, now() + make_interval(secs => ${1 / perSecond}))
          ON CONFLICT (key) DO UPDATE SET
            count = CASE WHEN greatest(w.reset_at, now()) <= now() + make_interval(secs => ${1 - 1 / perSecond}) THEN 1 ELSE 0 END,
            reset_at = CASE WHEN greatest(w.reset_at, now()) <= now() + make_interval(secs => ${1 - 1 / perSecond})
              THEN greatest(w.reset_at, now()) + make_interval(secs => ${1 / perSecond}) ELSE w.reset_at END
          RETURNING count, (extract(epoch FROM reset_at - now()) * 1000)::float8 - ${1000 - 1000 / perSecond} AS wait_ms`.pipe(
          Effect.map(([row]) =>
            row === undefined || row.count === 1
              ? { allowed: true, retryAfterSeconds: 0 }
              : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(row.wait_ms / 1000)) }
          ),
          Effect.orDie
        ),
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
