/** Run status and the one table of transitions every change goes through (01 "Run status"). */
export const RunStatuses = ["pending", "running", "paused", "completed", "failed", "cancelled", "skipped"] as const
export type RunStatus = typeof RunStatuses[number]

export const TerminalStatuses: ReadonlyArray<RunStatus> = ["completed", "failed", "cancelled", "skipped"]
export const isTerminal = (s: RunStatus) => TerminalStatuses.includes(s)

export type RunEvent = "start" | "pause" | "resume" | "complete" | "fail" | "cancel" | "skip"

const table: Record<RunEvent, { readonly from: ReadonlyArray<RunStatus>; readonly to: RunStatus }> = {
  start: { from: ["pending"], to: "running" },
  pause: { from: ["running"], to: "paused" },
  resume: { from: ["paused"], to: "running" },
  complete: { from: ["running"], to: "completed" },
  fail: { from: ["pending", "running", "paused"], to: "failed" },
  cancel: { from: ["pending", "running", "paused"], to: "cancelled" },
  skip: { from: ["pending"], to: "skipped" }
}

/** The statuses an event may leave from, and where it goes. */
export const transitionOf = (event: RunEvent) => table[event]

/** The next status, or undefined when the event is not allowed in this status. */
export const next = (status: RunStatus, event: RunEvent): RunStatus | undefined =>
  table[event].from.includes(status) ? table[event].to : undefined
