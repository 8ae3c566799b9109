import { Effect } from "effect"
import { Redis } from "ioredis"

/** A connected ioredis client, closed with the scope. */
export const connectRedis = (url: string) =>
  Effect.acquireRelease(
    Effect.tryPromise(async () => {
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 })
      await client.connect()
      return client
    }).pipe(Effect.orDie),
    (client) => Effect.promise(() => client.quit().catch(() => "OK"))
  )
