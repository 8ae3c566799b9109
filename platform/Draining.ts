import { Deferred, Effect } from "effect"

/**
 * The process has begun to stop: long-lived responses (event streams) end at once, so the
 * server's grace period is spent on requests that finish, not on streams that never do. A client
 * resumes its stream elsewhere with Last-Event-ID.
 */
export class Draining extends Effect.Service<Draining>()("Draining", {
  effect: Effect.map(Deferred.make<void>(), (started) => ({
    begin: Effect.asVoid(Deferred.succeed(started, undefined)),
    started: Deferred.await(started)
  }))
}) {}
