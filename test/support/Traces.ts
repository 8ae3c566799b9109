import { Effect } from "effect"
import { http } from "./Http.js"

export interface Attr {
  readonly key: string
  readonly value: { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number }
}
export interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly startTimeUnixNano: string
  readonly endTimeUnixNano: string
  readonly attributes: ReadonlyArray<Attr>
  readonly events: ReadonlyArray<{ name: string; attributes: ReadonlyArray<Attr> }>
  readonly links: ReadonlyArray<{ traceId: string; spanId: string; attributes: ReadonlyArray<Attr> }>
  readonly status: { code?: number; message?: string }
}
export interface LogRecord {
  readonly traceId: string
  readonly spanId: string
  readonly severityText: string
  readonly body: { stringValue?: string }
  readonly attributes: ReadonlyArray<Attr>
}

export interface TraceBody {
  readonly traces: { resourceSpans: ReadonlyArray<{ scopeSpans: ReadonlyArray<{ scope: { name: string }; spans: ReadonlyArray<Span> }> }> }
  readonly logs: { resourceLogs: ReadonlyArray<{ scopeLogs: ReadonlyArray<{ logRecords: ReadonlyArray<LogRecord> }> }> }
  readonly truncated: boolean
}

export const spansOf = (body: TraceBody): Array<Span> => body.traces.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
export const logsOf = (body: TraceBody): Array<LogRecord> => body.logs.resourceLogs.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords))

export const attr = (item: { attributes: ReadonlyArray<Attr> }, key: string) => {
  const v = item.attributes.find((a) => a.key === key)?.value
  return v === undefined ? undefined : v.stringValue ?? v.boolValue ?? v.doubleValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined)
}
export const keys = (item: { attributes: ReadonlyArray<Attr> }) => item.attributes.map((a) => a.key)

export const runTrace = (token: string, runId: string) => http("GET", `/api/v1/workflow/runs/${runId}/trace`, { token })

export const traceIdOf = (runId: string) => runId.replace(/-/g, "")

export const spanNamed = (body: TraceBody, name: string) => {
  const found = spansOf(body).find((s) => s.name === name)
  return found === undefined ? Effect.dieMessage(`no span '${name}' in ${spansOf(body).map((s) => s.name).join(", ")}`) : Effect.succeed(found)
}
