import type { KeyValue, OtlpLogRecord } from "./OtlpJson.js"
import type { OtlpSpan } from "./OtlpSpan.js"
import { type Detail, redactLog, redactSpan } from "./Redaction.js"
import { RUNS_SCOPE } from "./RootSpan.js"
import type { Worklog } from "./RunTraceStore.js"
import { SERVICE_NAME } from "./Telemetry.js"

export interface TraceDocument {
  readonly traces: {
    readonly resourceSpans: ReadonlyArray<{
      readonly resource: { readonly attributes: ReadonlyArray<KeyValue> }
      readonly scopeSpans: ReadonlyArray<{ readonly scope: { readonly name: string }; readonly spans: ReadonlyArray<OtlpSpan> }>
    }>
  }
  readonly logs: {
    readonly resourceLogs: ReadonlyArray<{
      readonly resource: { readonly attributes: ReadonlyArray<KeyValue> }
      readonly scopeLogs: ReadonlyArray<{ readonly scope: { readonly name: string }; readonly logRecords: ReadonlyArray<OtlpLogRecord> }>
    }>
  }
}

const resource = { attributes: [{ key: "service.name", value: { stringValue: SERVICE_NAME } }] }

/** Worklogs (in the order given) as one OTLP JSON document, with what `detail` may see. */
export const traceDocument = (worklogs: ReadonlyArray<Worklog>, detail: Detail): TraceDocument => {
  const scopes = new Map<string, Array<OtlpSpan>>()
  for (const w of worklogs) {
    for (const { scope, span } of w.spans) {
      const list = scopes.get(scope) ?? []
      list.push(redactSpan(span, detail))
      scopes.set(scope, list)
    }
  }
  const logRecords = worklogs.flatMap((w) => w.logs.map((l) => redactLog(l, detail)))
  return {
    traces: {
      resourceSpans: scopes.size === 0 ? [] : [{ resource, scopeSpans: [...scopes].map(([name, spans]) => ({ scope: { name }, spans })) }]
    },
    logs: {
      resourceLogs: logRecords.length === 0 ? [] : [{ resource, scopeLogs: [{ scope: { name: RUNS_SCOPE }, logRecords }] }]
    }
  }
}
