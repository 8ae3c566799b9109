import { HttpServerResponse } from "@effect/platform"
import { Effect, Stream } from "effect"
import { gaugeAdd, sseOpen } from "../../otel/Metrics.js"
import { Draining } from "../../platform/Draining.js"
import { traced } from "../../platform/Traced.js"
import type { Principal } from "../../schemas/Principal.js"
import { RunFeeds } from "./RunFeeds.js"
import { Runs } from "./Runs.js"

const KEEP_ALIVE = new TextEncoder().encode(": keep-alive\n\n")

/**
 * The run's Server-Sent Events. Events always come from the run_events table in sequence
 * order (read once per process for all followers of a run, see RunFeeds): a live notification
 * (Redis or in-process) or a one-second tick only says "read on", so a reconnect with
 * Last-Event-ID gets every later event exactly once, nothing is lost between the replay and the
 * live part, and a stream opened after the end replays and closes.
 */
export class RunStream extends Effect.Service<RunStream>()("RunStream", {
  dependencies: [RunFeeds.Default, Runs.Default],
  effect: Effect.gen(function*() {
    const runs = yield* Runs
    const feeds = yield* RunFeeds
    const draining = yield* Draining

    /** The stream of a run the caller was already found allowed to follow. */
    const follow = (run: { readonly id: string }, lastEventId: number) =>
      Effect.sync(() => {
        const body = feeds.after(run.id, lastEventId).pipe(
          Stream.map((batch) => batch.bytes),
          Stream.merge(Stream.tick("15 seconds").pipe(Stream.map(() => KEEP_ALIVE)), { haltStrategy: "left" }),
          Stream.interruptWhen(draining.started)
        )
        const counted = Stream.unwrap(Effect.as(gaugeAdd(sseOpen, 1), body)).pipe(Stream.ensuring(gaugeAdd(sseOpen, -1)))
        return HttpServerResponse.stream(counted, {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "keep-alive" }
        })
      })

    const open = (principal: Principal, runId: string, lastEventId: number) => Effect.flatMap(runs.visible(principal, runId), (run) => follow(run, lastEventId))

    return traced("RunStream", { open, follow })
  })
}) {}
