import { Context, Deferred, Effect, Layer, Stream } from "effect"
import { EventBus } from "../EventBus.js"

const CHANNEL = "runs:cancel"

/**
 * Cancel reaches the work wherever it runs: node executions race a per-run signal, which a
 * cancel request raises locally and broadcasts to every other process over the event bus.
 */
export class Cancellation extends Context.Tag("Cancellation")<Cancellation, {
  readonly raise: (runId: string) => Effect.Effect<void>
  /** Completes when the run is cancelled (in this process or any other). */
  readonly awaitCancel: (runId: string) => Effect.Effect<void>
  readonly release: (runId: string) => Effect.Effect<void>
}>() {
  static readonly layer = Layer.scoped(
    Cancellation,
    Effect.gen(function*() {
      const bus = yield* EventBus
      const signals = new Map<string, Deferred.Deferred<void>>()
      const signalFor = (runId: string) =>
        Effect.gen(function*() {
          const existing = signals.get(runId)
          if (existing !== undefined) return existing
          const created = yield* Deferred.make<void>()
          signals.set(runId, created)
          return created
        })
      const local = (runId: string) => Effect.flatMap(signalFor(runId), (d) => Deferred.succeed(d, undefined))
      yield* bus.subscribe(CHANNEL).pipe(Stream.runForEach(local), Effect.forkScoped)
      return {
        raise: (runId) => local(runId).pipe(Effect.zipRight(bus.publish(CHANNEL, runId))),
        awaitCancel: (runId) => Effect.flatMap(signalFor(runId), Deferred.await),
        release: (runId) => Effect.sync(() => void signals.delete(runId))
      }
    })
  )
}
