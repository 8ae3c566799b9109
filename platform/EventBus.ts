import { Context, Effect, Layer, Option, Queue, Runtime, Stream } from "effect"
import { AppConfig } from "./Config.js"
import { postgresBus } from "./PostgresBus.js"
import { connectRedis, RedisConnection } from "./Redis.js"

const REDIS_AWAY = "Redis is unavailable: live notifications of run events are dropped (streams read on every second) until it is back"

export interface EventBusShape {
  readonly publish: (channel: string, message: string) => Effect.Effect<void>
  /** Live messages on a channel from the moment of subscription; dropped when the stream ends. */
  readonly subscribe: (channel: string) => Stream.Stream<string>
}

/**
 * Cross-node fan-out: Redis pub/sub when `REDIS_URL` is set, PostgreSQL LISTEN/NOTIFY for split
 * processes without Redis (`EVENT_BUS`), else one process's own channels.
 */
export class EventBus extends Context.Tag("EventBus")<EventBus, EventBusShape>() {
  /** One process's channels: a publish reaches only its channel's subscribers. */
  static readonly memory: Effect.Effect<EventBusShape> = Effect.sync(() => {
    const channels = new Map<string, Set<Queue.Queue<string>>>()
    return {
      publish: (channel, message) =>
        Effect.sync(() => {
          channels.get(channel)?.forEach((queue) => void Queue.unsafeOffer(queue, message))
        }),
      subscribe: (channel) =>
        Stream.unwrapScoped(
          Effect.gen(function*() {
            const queue = yield* Effect.acquireRelease(Queue.unbounded<string>(), (queue) =>
              Effect.zipRight(
                Effect.sync(() => {
                  const set = channels.get(channel)
                  set?.delete(queue)
                  if (set?.size === 0) channels.delete(channel)
                }),
                Queue.shutdown(queue)
              ))
            const set = channels.get(channel) ?? new Set()
            set.add(queue)
            channels.set(channel, set)
            return Stream.fromQueue(queue)
          })
        )
    }
  })

  /**
   * Redis pub/sub. Notifications are best effort: while Redis is away a publish is dropped (with a
   * warning, once a minute) and followers read on by their own 1 s poll of the journal.
   */
  static readonly redis = (url: string, prefix: string) =>
    Effect.gen(function*() {
      const runtime = yield* Effect.runtime<never>()
      const publisher = yield* connectRedis(url)
      const subscriber = yield* connectRedis(url)
      const listeners = new Map<string, Set<(message: string) => void>>()
      subscriber.on("message", (channel: string, message: string) => {
        listeners.get(channel)?.forEach((listener) => listener(message))
      })
      // After an outage, every channel with a listener is subscribed again (those whose first
      // SUBSCRIBE failed while Redis was away included).
      subscriber.on("ready", () => {
        if (listeners.size > 0) subscriber.subscribe(...listeners.keys()).catch(() => undefined)
      })
      const key = (channel: string) => `${prefix}bus:${channel}`
      const shape: EventBusShape = {
        // Sent without waiting for Redis's answer: a run's next node never waits on the bus.
        publish: (channel, message) =>
          Effect.sync(() => void publisher.publish(key(channel), message).catch(() => Runtime.runFork(runtime)(Effect.logWarning(REDIS_AWAY)))),
        subscribe: (channel) =>
          Stream.unwrapScoped(
            Effect.gen(function*() {
              const queue = yield* Queue.unbounded<string>()
              const listener = (message: string) => void Queue.unsafeOffer(queue, message)
              yield* Effect.acquireRelease(
                Effect.promise(async () => {
                  const set = listeners.get(key(channel)) ?? new Set()
                  set.add(listener)
                  if (!listeners.has(key(channel))) {
                    listeners.set(key(channel), set)
                    return subscriber.subscribe(key(channel)).then(() => true, () => false)
                  }
                  return true
                }).pipe(Effect.tap((subscribed) => subscribed ? Effect.void : Effect.logWarning(REDIS_AWAY))),
                () =>
                  Effect.promise(async () => {
                    const set = listeners.get(key(channel))
                    set?.delete(listener)
                    if (set !== undefined && set.size === 0) {
                      listeners.delete(key(channel))
                      await subscriber.unsubscribe(key(channel)).catch(() => undefined)
                    }
                  })
              )
              return Stream.fromQueue(queue)
            })
          )
      }
      return shape
    })

  static readonly postgres = postgresBus

  static readonly layer = Layer.scoped(
    EventBus,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const redis = yield* RedisConnection
      switch (config.eventBus) {
        case "redis":
          return yield* Option.match(redis, {
            onNone: () => Effect.dieMessage("EVENT_BUS=redis without REDIS_URL"),
            onSome: ({ prefix, url }) => EventBus.redis(url, prefix)
          })
        case "postgres":
          return yield* EventBus.postgres
        case "memory":
          return yield* EventBus.memory
      }
    })
  )
}
