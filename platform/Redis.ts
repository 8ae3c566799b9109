import { Context, Effect, Layer, Option } from "effect"
import { Redis } from "ioredis"
import { AppConfig } from "./Config.js"
import { retryStartup, rootReason } from "./StartupRetry.js"

export const REDIS_COMMAND_TIMEOUT_MS = 1000

/**
 * A connected ioredis client, closed with the scope. While Redis is away it reconnects by itself,
 * but a command fails at once instead of waiting in a queue, and one that gets no answer fails
 * after REDIS_COMMAND_TIMEOUT_MS: callers degrade (see EventBus, RateLimiter) instead of hanging.
 */
export const connectRedis = (url: string) =>
  Effect.acquireRelease(
    Effect.tryPromise(async () => {
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: REDIS_COMMAND_TIMEOUT_MS })
      // Connection errors are reported by the failing commands; unhandled, ioredis logs each retry.
      client.on("error", () => {})
      await client.connect()
      return client
    }).pipe(Effect.orDie),
    (client) => Effect.promise(() => client.quit().catch(() => "OK"))
  )

/** One PING on a client that does not retry by itself. */
const ping = (url: string) =>
  Effect.tryPromise(async () => {
    const client = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 2000 })
    let failure: unknown
    client.on("error", (error: unknown) => (failure ??= error))
    try {
      await client.connect()
      await client.ping()
    } catch (error) {
      throw failure ?? error
    } finally {
      client.disconnect()
    }
  })

const address = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.hostname}:${parsed.port || "6379"}`
}

/** Redis as configured, once it answers (waited for up to STARTUP_TIMEOUT_SECONDS); none without `REDIS_URL`. */
export class RedisConnection extends Context.Tag("RedisConnection")<
  RedisConnection,
  Option.Option<{
    readonly url: string
    readonly prefix: string
  }>
>() {
  static readonly layer = Layer.effect(
    RedisConnection,
    Effect.gen(function*() {
      const config = yield* AppConfig
      if (Option.isNone(config.redisUrl)) return Option.none()
      const url = config.redisUrl.value
      yield* retryStartup({
        what: `Redis at ${address(url)}`,
        timeoutSeconds: config.startupTimeoutSeconds,
        attempt: ping(url),
        classify: (error) => {
          const { code, message } = rootReason(error)
          return /NOAUTH|WRONGPASS|invalid password/i.test(message)
            ? { reason: message, retryable: false, fatal: `Redis at ${address(url)} refused the credentials in REDIS_URL (${message}): fix REDIS_URL.` }
            : { reason: code ?? message, retryable: true }
        },
        giveUp: (reason) =>
          `Redis at ${address(url)} did not answer within ${config.startupTimeoutSeconds} s (${reason}): start it, fix REDIS_URL, or unset REDIS_URL.`
      })
      return Option.some({ url, prefix: config.redisKeyPrefix })
    })
  )
}
