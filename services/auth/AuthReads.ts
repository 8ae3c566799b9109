import { Effect, Stream } from "effect"
import { AppConfig } from "../../platform/Config.js"
import { EventBus } from "../../platform/EventBus.js"
import { traced } from "../../platform/Traced.js"
import { makeTtlCache, type TtlCache } from "../../platform/TtlCache.js"

const CHANNEL = "auth.changed"

/**
 * What every authenticated request reads (a token's user and membership, a key with its owner)
 * kept in memory for `AUTH_CACHE_SECONDS` (default 5; 0 reads on every request). Any write to
 * users, memberships, tenant settings or keys clears every cache at once, here and, over the event
 * bus, on every other node; the time to live bounds what a node that missed the message serves.
 */
export class AuthReads extends Effect.Service<AuthReads>()("AuthReads", {
  scoped: Effect.gen(function*() {
    const bus = yield* EventBus
    const ttlMs = (yield* AppConfig).authCacheSeconds * 1000
    const caches: Array<TtlCache<unknown>> = []
    const clearAll = () => caches.forEach((cache) => cache.clear())
    yield* bus.subscribe(CHANNEL).pipe(Stream.runForEach(() => Effect.sync(clearAll)), Effect.forkScoped)

    /** A cache that every auth write clears. */
    const cache = <A>(): TtlCache<A> => {
      if (ttlMs <= 0) return { get: (_key, load) => load, delete: () => undefined, clear: () => undefined }
      const made = makeTtlCache<A>({ ttlMs, capacity: 10_000 })
      caches.push(made as TtlCache<unknown>)
      return made
    }

    /** After a write that changes who may do what: every node forgets what it read. */
    const changed = Effect.zipRight(Effect.sync(clearAll), bus.publish(CHANNEL, "changed"))

    return traced("AuthReads", { cache, changed })
  })
}) {}
