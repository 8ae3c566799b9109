import { PgClient } from "@effect/sql-pg"
import { Effect, Queue, Redacted, Stream } from "effect"
import pg from "pg"

const CHANNEL = "bp_bus"
/** NOTIFY payloads must stay under 8000 bytes. */
const MAX_PAYLOAD = 7900

export interface Bus {
  readonly publish: (channel: string, message: string) => Effect.Effect<void>
  readonly subscribe: (channel: string) => Stream.Stream<string>
}

/**
 * The event bus on PostgreSQL's LISTEN/NOTIFY, for processes that share a database but no Redis.
 * One listening connection per process (re-opened when it drops) fans messages out to local
 * subscribers. Delivery is best effort, as with Redis pub/sub: messages sent while the listening
 * connection is down are not replayed, which is why run streams also poll their stored events.
 */
export const postgresBus = Effect.gen(function*() {
  const client = yield* PgClient.PgClient
  const listeners = new Map<string, Set<(message: string) => void>>()
  const dispatch = (payload: string | undefined) => {
    if (payload === undefined) return
    const parsed = JSON.parse(payload) as { readonly c: string; readonly m: string }
    listeners.get(parsed.c)?.forEach((listener) => listener(parsed.m))
  }
  const options = client.config
  const connect = Effect.async<pg.Client, Error>((resume) => {
    const listener = new pg.Client({
      ...(options.url !== undefined ? { connectionString: Redacted.value(options.url) } : {}),
      ...(options.host !== undefined ? { host: options.host } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.username !== undefined ? { user: options.username } : {}),
      ...(options.password !== undefined ? { password: Redacted.value(options.password) } : {}),
      ...(options.database !== undefined ? { database: options.database } : {}),
      application_name: "builder-platform-bus"
    })
    listener.on("notification", (message) => dispatch(message.payload))
    listener.on("error", () => undefined)
    listener.connect()
      .then(() => listener.query(`LISTEN ${CHANNEL}`))
      .then(() => resume(Effect.succeed(listener)), (error: Error) => {
        void listener.end().catch(() => undefined)
        resume(Effect.fail(error))
      })
  })
  const ended = (listener: pg.Client) => Effect.async<void>((resume) => void listener.once("end", () => resume(Effect.void)))
  const close = (listener: pg.Client) => Effect.promise(() => listener.end().catch(() => undefined))
  // Listen before anyone subscribes; when the connection drops, listen again.
  const first = yield* connect.pipe(Effect.orDie)
  const again: Effect.Effect<void> = Effect.acquireUseRelease(connect, ended, close).pipe(
    Effect.catchAll((error) =>
      Effect.logWarning(`Event bus: cannot listen on PostgreSQL (${error.message}); retrying`).pipe(Effect.zipRight(Effect.sleep("1 second")))
    )
  )
  yield* ended(first).pipe(Effect.zipRight(Effect.forever(again)), Effect.onInterrupt(() => close(first)), Effect.forkScoped)

  const publish = (channel: string, message: string) => {
    const payload = JSON.stringify({ c: channel, m: message })
    return Buffer.byteLength(payload) > MAX_PAYLOAD
      ? Effect.logWarning(`Event bus: a message of ${payload.length} bytes on ${channel} is over NOTIFY's limit and was dropped`)
      : client`SELECT pg_notify(${CHANNEL}, ${payload})`.pipe(Effect.asVoid, Effect.orDie)
  }

  const subscribe = (channel: string) =>
    Stream.unwrapScoped(Effect.gen(function*() {
      const queue = yield* Queue.unbounded<string>()
      const listener = (message: string) => void Queue.unsafeOffer(queue, message)
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          const set = listeners.get(channel) ?? new Set()
          set.add(listener)
          listeners.set(channel, set)
        }),
        () =>
          Effect.sync(() => {
            const set = listeners.get(channel)
            set?.delete(listener)
            if (set?.size === 0) listeners.delete(channel)
          })
      )
      return Stream.fromQueue(queue)
    }))

  return { publish, subscribe } satisfies Bus
})
