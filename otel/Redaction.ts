import type { Role } from "../schemas/Roles.js"
import type { KeyValue, OtlpLogRecord } from "./OtlpJson.js"
import type { OtlpSpan } from "./OtlpSpan.js"

/**
 * How much of a trace a role sees. `basic`: node names, status, timing, ids; `operational` adds
 * model, tokens, tool calls and results, and errors; `content` adds instructions, prompts and
 * model outputs. Every attribute is classified; a key not listed here is `content`.
 */
export type Detail = "basic" | "operational" | "content"

export const detailFor = (role: Role): Detail =>
  role === "env_admin" || role === "system_admin" ? "content" : role === "builder_admin" ? "operational" : "basic"

const BASIC = new Set([
  "bp.run_id",
  "bp.parent_run_id",
  "bp.parent_node_id",
  "bp.child_run_id",
  "bp.link",
  "workflow.id",
  "workflow.name",
  "workflow.version",
  "run.status",
  "run.trigger_type",
  "run.is_dry_run",
  "run.in_progress",
  "node.id",
  "node.type",
  "node.name",
  "step.id",
  "step.status",
  "event.name",
  "hitl.request_id",
  "agent.type",
  "agent.type_version",
  "agent.preset",
  "status.interrupted"
])

const OPERATIONAL = new Set([
  "gen_ai.operation.name",
  "gen_ai.request.model",
  "gen_ai.response.model",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gen_ai.usage.total_tokens",
  "llm.latency_ms",
  "llm.finish_reason",
  "llm.tool_calls",
  "llm.tools",
  "llm.structured_output",
  "tool.id",
  "tool.source",
  "tool.arguments",
  "tool.result",
  "tool.dry_run",
  "tool.duration_ms",
  "tool.status",
  "tool.call_id",
  "run.error",
  "event.error",
  "event.reason",
  "exception.type",
  "exception.message"
])

export const classify = (key: string): Detail => (BASIC.has(key) ? "basic" : OPERATIONAL.has(key) ? "operational" : "content")

const rank: Record<Detail, number> = { basic: 0, operational: 1, content: 2 }
const visible = (key: string, detail: Detail) => rank[classify(key)] <= rank[detail]

/** What roles without error detail see instead of an error message. */
export const ERROR_MARKER = "error"

const keep = (attributes: ReadonlyArray<KeyValue> | undefined, detail: Detail) => (attributes ?? []).filter((a) => visible(a.key, detail))

type SpanEvent = { readonly name: string; readonly attributes?: ReadonlyArray<KeyValue> }

/** A span with only what `detail` may see; for `basic`, an error keeps its status code but not its message. */
export const redactSpan = (span: OtlpSpan, detail: Detail): OtlpSpan => {
  if (detail === "content") return span
  const status = span.status as { code?: number; message?: string } | undefined
  const events = ((span.events ?? []) as ReadonlyArray<SpanEvent>)
    .filter((e) => detail === "operational" || e.name.startsWith("hitl."))
    .map((e) => ({ ...e, attributes: keep(e.attributes, detail) }))
  return {
    ...span,
    attributes: keep(span.attributes as ReadonlyArray<KeyValue>, detail),
    events,
    ...(status !== undefined
      ? { status: detail === "basic" && status.message !== undefined ? { ...status, message: status.code === 2 ? ERROR_MARKER : "" } : status }
      : {})
  }
}

/** A log record with only what `detail` may see; for `basic` the body is just the event's name. */
export const redactLog = (log: OtlpLogRecord, detail: Detail): OtlpLogRecord => {
  if (detail === "content") return log
  const name = log.attributes.find((a) => a.key === "event.name")?.value
  return {
    ...log,
    attributes: keep(log.attributes, detail),
    body: detail === "basic" ? (name ?? { stringValue: log.severityText }) : log.body
  }
}
