import { HttpServerResponse } from "@effect/platform"
import { Effect, Stream } from "effect"
import type { Principal } from "../../schemas/Principal.js"
import { Draining } from "../../platform/Draining.js"
import { EventBus } from "../../platform/EventBus.js"
import { eventJson, RunEvents, runChannel, type StoredEvent } from "../../runtime/run/RunEvents.js"
import { Runs } from "./Runs.js"

const FINAL = ["run_completed", "run_failed", "run_cancelled"]
const encoder = new TextEncoder()

/**
 * The run's Server-Sent Events. Events always come from the run_events table in sequence
 * order: a live notification (Redis or in-process) or a one-second tick only says "read on",
 * so a reconnect with Last-Event-ID gets every later event exactly once, nothing is lost
 * between the replay and the live part, and a stream opened after the end replays and closes.
 */
export class RunStream extends Effect.Service<RunStream>()("RunStream", {
  effect: Effect.gen(function*() {
    const runs = yield* Runs
    const events = yield* RunEvents
    const bus = yield* EventBus
    const draining = yield* Draining

    /** The stream of a run the caller was already found allowed to follow. */
    const follow = (run: { readonly id: string }, lastEventId: number) =>
      Effect.sync(() => {
        const triggers = Stream.make(undefined).pipe(
          Stream.concat(Stream.merge(bus.subscribe(runChannel(run.id)), Stream.tick("1 second")))
        )
        const body = triggers.pipe(
          Stream.mapAccumEffect(lastEventId, (last, _trigger) =>
            events.after(run.id, last).pipe(
              Effect.map((batch): readonly [number, ReadonlyArray<StoredEvent>] => [batch.at(-1)?.seq ?? last, batch])
            )),
          Stream.flattenIterables,
          Stream.takeUntil((e) => FINAL.includes(e.type)),
          Stream.map((e) => `id: ${e.seq}\ndata: ${JSON.stringify(eventJson(run.id, e))}\n\n`),
          Stream.merge(Stream.tick("15 seconds").pipe(Stream.map(() => ": keep-alive\n\n")), { haltStrategy: "left" }),
          Stream.map((text) => encoder.encode(text)),
          Stream.interruptWhen(draining.started)
        )
        return HttpServerResponse.stream(body, {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "keep-alive" }
        })
      })

    const open = (principal: Principal, runId: string, lastEventId: number) =>
      Effect.flatMap(runs.visible(principal, runId), (run) => follow(run, lastEventId))

    return { open, follow }
  })
}) {}
