import { logRecord, type OtlpLogRecord } from "./OtlpJson.js"
import { RUN_ID, runTraceId } from "./RunTraceIds.js"

const messages: Record<string, (p: Record<string, unknown>) => string> = {
  step_started: (p) => `Step '${p.node_id}' started`,
  step_completed: (p) => `Step '${p.node_id}' completed`,
  step_failed: (p) => `Step '${p.node_id}' failed: ${p.error}`,
  step_skipped: (p) => `Step '${p.node_id}' skipped${p.reason !== undefined ? ` (${p.reason})` : ""}`,
  agent_completed: (p) => `Agent step '${p.node_id}' answered`,
  tool_called: (p) => `Step '${p.node_id}' called ${String(p.tool_id)}: ${String(p.call_status)} in ${String(p.duration_ms)} ms`,
  run_paused: (p) => `Run paused for a person at '${p.node_id}'`,
  run_resumed: (p) => `Run resumed at '${p.node_id}'`,
  run_completed: () => "Run completed",
  run_failed: (p) => `Run failed: ${p.error}`,
  run_cancelled: () => "Run cancelled"
}

const severityOf = (type: string) =>
  type === "step_failed" || type === "run_failed" ? "ERROR" as const : type === "run_cancelled" ? "WARN" as const : "INFO" as const

/**
 * The log record of a run event (token deltas are not logged). Identifying fields become plain
 * attributes; what the event carries besides (errors, outputs) goes under `event.*`, which the
 * trace endpoints show by role.
 */
export const eventLog = (input: {
  readonly runId: string
  readonly type: string
  readonly payload: Record<string, unknown>
  readonly time: Date
  readonly spanId: string
}): OtlpLogRecord | undefined => {
  const message = messages[input.type]
  if (message === undefined) return undefined
  const { node_id, request_id, status, step_id, ...rest } = input.payload
  return logRecord({
    time: input.time,
    severity: severityOf(input.type),
    body: message(input.payload),
    attributes: {
      [RUN_ID]: input.runId,
      "event.name": input.type,
      "node.id": node_id,
      "step.id": step_id,
      "run.status": status,
      "hitl.request_id": request_id,
      ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [`event.${k}`, v]))
    },
    traceId: runTraceId(input.runId),
    spanId: input.spanId
  })
}
