import { Effect } from "effect"

/** Reads kept in memory for a short while, by string key. */
export interface TtlCache<A> {
  /** The cached value of `key`, else `load`'s (kept unless the cache was cleared while it loaded). */
  readonly get: <E, R>(key: string, load: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly delete: (key: string) => void
  readonly clear: () => void
}

/**
 * A bounded in-process cache with a time to live. A load that started before a `clear` is not
 * stored, so a write that clears the cache is never followed by the value read before it. At
 * capacity the oldest entry goes (Map keeps insertion order).
 */
export const makeTtlCache = <A>(options: { readonly ttlMs: number; readonly capacity: number }): TtlCache<A> => {
  const entries = new Map<string, { readonly expires: number; readonly value: A }>()
  let generation = 0
  const store = (key: string, value: A, startedIn: number) => {
    if (startedIn !== generation) return
    entries.delete(key)
    if (entries.size >= options.capacity) {
      const oldest = entries.keys().next()
      if (oldest.done !== true) entries.delete(oldest.value)
    }
    entries.set(key, { expires: Date.now() + options.ttlMs, value })
  }
  return {
    get: (key, load) =>
      Effect.suspend(() => {
        const hit = entries.get(key)
        if (hit !== undefined && hit.expires > Date.now()) return Effect.succeed(hit.value)
        const startedIn = generation
        return Effect.tap(load, (value) => Effect.sync(() => store(key, value, startedIn)))
      }),
    delete: (key) => {
      generation++
      entries.delete(key)
    },
    clear: () => {
      generation++
      entries.clear()
    }
  }
}
