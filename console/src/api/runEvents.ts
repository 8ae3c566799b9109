import { useQueryClient } from "@tanstack/react-query"
import { Either, Schema } from "effect"
import { useEffect, useState } from "react"
import { isFinalEvent, RunStreamEvent } from "../../../schemas/RunLifecycle"

/** An event of a run's stream as the contract describes it (`schemas/RunLifecycle.ts`), with its number on the stream. */
export type RunEvent = RunStreamEvent & { readonly id: number }

const decodeEvent = Schema.decodeUnknownEither(Schema.parseJson(RunStreamEvent))

/**
 * A run's live events (SSE). The browser's EventSource reconnects by itself with `Last-Event-ID`
 * after a dropped connection, and the platform sends each later event exactly once; the stream
 * closes at the run's end, when the run's queries are read again.
 */
export const useRunEvents = (runId: string, enabled: boolean) => {
  const [events, setEvents] = useState<ReadonlyArray<RunEvent>>([])
  const [state, setState] = useState<"connecting" | "open" | "ended" | "retrying">("connecting")
  const queryClient = useQueryClient()
  useEffect(() => {
    setEvents([])
    setState("connecting")
    if (!enabled) return
    const source = new EventSource(`/api/v1/workflow/runs/${runId}/stream`)
    const seen = new Set<number>()
    let pending: Array<RunEvent> = []
    let frame: number | undefined
    // Tokens arrive many a second: the list is updated once a frame.
    const flush = () => {
      frame = undefined
      const batch = pending
      pending = []
      setEvents((previous) => [...previous, ...batch])
    }
    source.onopen = () => setState("open")
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? "ended" : "retrying")
    source.onmessage = (message: MessageEvent<string>) => {
      const id = Number(message.lastEventId)
      if (seen.has(id)) return
      seen.add(id)
      // An event of a type this console does not know (a newer platform's) is not shown.
      const decoded = decodeEvent(message.data)
      if (Either.isLeft(decoded)) return
      const event: RunEvent = { ...decoded.right, id }
      pending.push(event)
      frame ??= requestAnimationFrame(flush)
      if (event.type === "step_completed" || event.type === "step_failed" || event.type === "run_paused" || event.type === "run_resumed") {
        void queryClient.invalidateQueries({ queryKey: ["run", runId] })
      }
      if (isFinalEvent(event.type)) {
        source.close()
        setState("ended")
        void queryClient.invalidateQueries({ queryKey: ["run", runId] })
        void queryClient.invalidateQueries({ queryKey: ["runs"] })
      }
    }
    return () => {
      source.close()
      if (frame !== undefined) cancelAnimationFrame(frame)
    }
  }, [runId, enabled, queryClient])
  return { events, state }
}
