import { Schema } from "effect"
import { OtlpResourceSpans, type OtlpSpan } from "../../../../schemas/Trace"

const decodeResources = Schema.decodeUnknownSync(Schema.Array(OtlpResourceSpans))

export interface SpanRow {
  readonly span: OtlpSpan
  readonly depth: number
  /** Offset and length in milliseconds from the trace's start. */
  readonly startMs: number
  readonly durationMs: number
  readonly attributes: Readonly<Record<string, string | number | boolean>>
  readonly marks: ReadonlyArray<{ readonly name: string; readonly atMs: number }>
  readonly failed: boolean
}

const valueOf = (v: OtlpSpan["attributes"][number]["value"]) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? ""

const ms = (nanos: string) => Number(BigInt(nanos) / 1000n) / 1000

/**
 * The trace's spans in the order a waterfall draws them: each under its parent, siblings by start,
 * with offsets from the trace's start. Spans whose parent is not in the trace are roots.
 */
export const waterfall = (resourceSpans: ReadonlyArray<unknown>) => {
  const spans = decodeResources(resourceSpans).flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
  if (spans.length === 0) return { rows: [] as ReadonlyArray<SpanRow>, totalMs: 0 }
  const start = Math.min(...spans.map((s) => ms(s.startTimeUnixNano)))
  const end = Math.max(...spans.map((s) => ms(s.endTimeUnixNano)))
  const ids = new Set(spans.map((s) => s.spanId))
  const children = new Map<string, Array<OtlpSpan>>()
  for (const span of spans) {
    const parent = span.parentSpanId !== undefined && span.parentSpanId !== "" && ids.has(span.parentSpanId) ? span.parentSpanId : ""
    children.set(parent, [...(children.get(parent) ?? []), span])
  }
  const rows: Array<SpanRow> = []
  const visit = (parent: string, depth: number) => {
    for (const span of (children.get(parent) ?? []).sort((a, b) => ms(a.startTimeUnixNano) - ms(b.startTimeUnixNano))) {
      rows.push({
        span,
        depth,
        startMs: ms(span.startTimeUnixNano) - start,
        durationMs: Math.max(0, ms(span.endTimeUnixNano) - ms(span.startTimeUnixNano)),
        attributes: Object.fromEntries(span.attributes.map((a) => [a.key, valueOf(a.value)])),
        marks: span.events.map((e) => ({ name: e.name, atMs: ms(e.timeUnixNano) - start })),
        failed: span.status?.code === 2
      })
      visit(span.spanId, depth + 1)
    }
  }
  visit("", 0)
  return { rows, totalMs: Math.max(1, end - start) }
}

/** What each step's model calls were given (instructions and input), by step id, as the trace shows it to the caller. */
export const stepInputs = (resourceSpans: ReadonlyArray<unknown>): ReadonlyMap<string, Readonly<Record<string, unknown>>> => {
  const { rows } = waterfall(resourceSpans)
  const out = new Map<string, Record<string, unknown>>()
  const stack: Array<SpanRow> = []
  for (const row of rows) {
    stack.length = row.depth
    stack.push(row)
    if (row.span.name !== "llm.call") continue
    const step = [...stack].reverse().find((r) => typeof r.attributes["step.id"] === "string")
    if (step === undefined) continue
    const given = Object.fromEntries(
      Object.entries(row.attributes).filter(([k]) => k === "llm.instructions" || k === "llm.input").map(([k, v]) => [k.slice(4), v])
    )
    if (Object.keys(given).length > 0) out.set(String(step.attributes["step.id"]), { ...out.get(String(step.attributes["step.id"])), ...given })
  }
  return out
}
