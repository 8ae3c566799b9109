/** Decided once per run by GlobalSetup.ts: whether a real Redis answers, and where. */
export const redisAvailable = process.env.TEST_REDIS_AVAILABLE !== "0"
export const testRedisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

/** What a platform process needs for a bus shared with other processes: Redis when there is one, else PostgreSQL. */
export const sharedBusEnv = (keyPrefix: string): Record<string, string> =>
  redisAvailable ? { REDIS_URL: testRedisUrl, REDIS_KEY_PREFIX: keyPrefix } : { EVENT_BUS: "postgres" }

/** Decided by GlobalSetup.ts: whether `redis-server` can be started (tests that need a Redis of their own). */
export const redisServerAvailable = process.env.TEST_REDIS_SERVER !== "0"
