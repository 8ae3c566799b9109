import { HttpServerResponse } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import { gaugeAdd, sseOpen } from "../../otel/Metrics.js"
import { traced } from "../../platform/Traced.js"
import type { Principal } from "../../schemas/Principal.js"
import { RunFeeds } from "./RunFeeds.js"
import { Runs } from "./Runs.js"

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

    /**
     * The stream of a run the caller was already found allowed to follow; 204 when the run ended at
     * or before `lastEventId`, which tells an EventSource to stop reconnecting (WHATWG HTML, 9.2).
     */
    const follow = (run: { readonly id: string }, lastEventId: number) =>
      Effect.map(feeds.after(run.id, lastEventId), (stream) => {
        if (Option.isNone(stream)) return HttpServerResponse.empty({ status: 204 })
        const counted = Stream.unwrap(Effect.as(gaugeAdd(sseOpen, 1), stream.value)).pipe(Stream.ensuring(gaugeAdd(sseOpen, -1)))
        return HttpServerResponse.stream(counted, {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "keep-alive" }
        })
      })

    const open = (principal: Principal, runId: string, lastEventId: number) => Effect.flatMap(runs.visible(principal, runId), (run) => follow(run, lastEventId))

    return traced("RunStream", { open, follow })
  })
}) {}
