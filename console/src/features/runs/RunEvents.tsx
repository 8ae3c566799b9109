import { useVirtualizer } from "@tanstack/react-virtual"
import { useEffect, useRef } from "react"
import type { RunEvent } from "../../api/runEvents"

const summary = (e: RunEvent) => {
  switch (e.type) {
    case "token":
      return `“${e.delta}”`
    case "run_paused":
      return `waiting for a person at ${e.node_id}`
    case "step_failed":
      return `${e.error} (${e.error_kind}${e.retryable ? ": trying again may help" : ""})`
    case "run_failed":
      return e.error ?? ""
    case "tool_called":
      return `${e.tool_id} ${e.call_status}`
    default:
      return "node_id" in e ? e.node_id : "status" in e ? e.status : ""
  }
}

/**
 * The run's events as they arrive: a virtual list (thousands of token events stay responsive),
 * following the end unless the reader scrolled up.
 */
export const RunEvents = ({ events, state }: { readonly events: ReadonlyArray<RunEvent>; readonly state: string }) => {
  const parent = useRef<HTMLDivElement>(null)
  const pinned = useRef(true)
  const lastTop = useRef(0)
  const rows = useVirtualizer({ count: events.length, getScrollElement: () => parent.current, estimateSize: () => 28, overscan: 12 })
  useEffect(() => {
    if (pinned.current && events.length > 0) rows.scrollToIndex(events.length - 1, { align: "end" })
  }, [events.length, rows])
  return (
    <div>
      <p className="muted events-count" role="status">
        {events.length.toLocaleString()} events · {state === "ended" ? "the run ended" : state === "retrying" ? "reconnecting…" : "live"}
      </p>
      <div
        ref={parent}
        className="events"
        tabIndex={0}
        aria-label="Run events"
        onScroll={(e) => {
          // Following stops when the reader scrolls up and resumes at the end; events arriving
          // between a programmatic scroll and this handler only grow the list, never unpin it.
          const el = e.currentTarget
          if (el.scrollHeight - el.scrollTop - el.clientHeight < 40) pinned.current = true
          else if (el.scrollTop < lastTop.current) pinned.current = false
          lastTop.current = el.scrollTop
        }}
      >
        <ol style={{ height: `${rows.getTotalSize()}px` }}>
          {rows.getVirtualItems().map((item) => {
            const e = events[item.index]
            return (
              <li key={item.key} className={`event ${e.type}`} style={{ transform: `translateY(${item.start}px)` }} data-type={e.type}>
                <span className="mono muted">#{e.id}</span> <strong>{e.type}</strong> <span>{summary(e)}</span>
              </li>
            )
          })}
        </ol>
      </div>
    </div>
  )
}
