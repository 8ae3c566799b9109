import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"

/**
 * `Last-Event-ID` (or `last_event_id` for clients that cannot set headers); 0 replays everything,
 * and so does an id no stream ever sent (not a whole number, or past what a number holds exactly).
 */
export const lastEventId = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const raw = request.headers["last-event-id"] ?? new URL(request.url, "http://x").searchParams.get("last_event_id") ?? "0"
  const n = Number(raw)
  return Number.isSafeInteger(n) && n >= 0 ? n : 0
})
