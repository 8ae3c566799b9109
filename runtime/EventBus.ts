import { Context, Effect, Layer, Option, PubSub, Queue, Stream } from "effect"
import { AppConfig } from "../services/shared/Config.js"
import { connectRedis } from "../services/shared/Redis.js"

export interface EventBusShape {
  readonly publish: (channel: string, message: string) => Effect.Effect<void>
  /** Live messages on a channel from the moment of subscription; dropped when the stream ends. */
  readonly subscribe: (channel: string) => Stream.Stream<string>
}

/** Cross-node fan-out: Redis pub/sub when `REDIS_URL` is set, else one process's PubSub. */
export class EventBus extends Context.Tag("EventBus")<EventBus, EventBusShape>() {
  static readonly memory: Effect.Effect<EventBusShape> = Effect.gen(function*() {
    const hub = yield* PubSub.unbounded<{ channel: string; message: string }>()
    return {
      publish: (channel, message) => PubSub.publish(hub, { channel, message }).pipe(Effect.asVoid),
      subscribe: (channel) =>
        Stream.fromPubSub(hub).pipe(
          Stream.filter((e) => e.channel === channel),
          Stream.map((e) => e.message)
        )
    }
  })

  static readonly redis = (url: string, prefix: string) =>
    Effect.gen(function*() {
      const publisher = yield* connectRedis(url)
      const subscriber = yield* connectRedis(url)
      const listeners = new Map<string, Set<(message: string) => void>>()
      subscriber.on("message", (channel: string, message: string) => {
        listeners.get(channel)?.forEach((listener) => listener(message))
      })
      const key = (channel: string) => `${prefix}bus:${channel}`
      const shape: EventBusShape = {
        publish: (channel, message) => Effect.promise(() => publisher.publish(key(channel), message)).pipe(Effect.asVoid),
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
                    await subscriber.subscribe(key(channel))
                  }
                }),
                () =>
                  Effect.promise(async () => {
                    const set = listeners.get(key(channel))
                    set?.delete(listener)
                    if (set !== undefined && set.size === 0) {
                      listeners.delete(key(channel))
                      await subscriber.unsubscribe(key(channel))
                    }
                  })
              )
              return Stream.fromQueue(queue)
            })
          )
      }
      return shape
    })

  static readonly layer = Layer.scoped(
    EventBus,
    Effect.flatMap(AppConfig, (config) =>
      Option.match(config.redisUrl, {
        onNone: () => EventBus.memory,
        onSome: (url) => EventBus.redis(url, config.redisKeyPrefix)
      }))
  )
}
