import { anyValue, type OtlpSpan } from "./OtlpSpan.js"
import { rootSpanId, RUN_ID, runTraceId } from "./RunTraceIds.js"

/**
 * A run's span as stored (`run_spans.spans`, one JSON array per commit): the OTLP JSON span with
 * what the run already says left out (its trace id, its `bp.run_id`, a parent that is the run's
 * root span), attributes as plain values instead of OTLP's typed list, and defaults omitted.
 * `expandSpan` gives back the OTLP span field for field (test/unit/compact-span.test.ts).
 */
export interface CompactSpan {
  readonly i: string
  readonly n: string
  /** Start, in nanoseconds since the epoch (a string: it does not fit a double). */
  readonly s: string
  /** Duration in nanoseconds. */
  readonly d: number
  /** Parent span id; 0 for the run's root span. */
  readonly p?: string | 0 | undefined
  /** Trace id, when it is not the run's. */
  readonly t?: string | undefined
  /** OTLP span kind, when not 1 (internal). */
  readonly k?: number | undefined
  readonly a?: Record<string, unknown> | undefined
  readonly e?:
    | ReadonlyArray<{ readonly n: string; readonly t: string; readonly a?: Record<string, unknown> | undefined; readonly x?: number | undefined }>
    | undefined
  readonly l?:
    | ReadonlyArray<
      { readonly i: string; readonly t: string; readonly f: number; readonly a?: Record<string, unknown> | undefined; readonly x?: number | undefined }
    >
    | undefined
  /** Status code, when not 0 (unset), and message. */
  readonly c?: number | undefined
  readonly m?: string | undefined
  /** Trace flags with OTLP's remote bits, when not 257 (sampled, parent local). */
  readonly f?: number | undefined
  readonly ts?: string | undefined
  /** Dropped attribute, event and link counts, when any. */
  readonly x?: readonly [number, number, number] | undefined
  /** Instrumentation scope, when not the row's. */
  readonly sc?: string | undefined
}

type OtlpValue = Record<string, unknown>
type OtlpAttribute = { readonly key: string; readonly value: OtlpValue }

const DEFAULT_FLAGS = 257

/** OTLP's typed value as the plain value it encodes (what `otlpSpan`'s `anyValue` was given). */
const plain = (value: OtlpValue): unknown => {
  if ("stringValue" in value) return value.stringValue
  if ("intValue" in value) return Number(value.intValue)
  if ("doubleValue" in value) return value.doubleValue
  if ("boolValue" in value) return value.boolValue
  if ("arrayValue" in value) return ((value.arrayValue as { values?: Array<OtlpValue> }).values ?? []).map(plain)
  if ("kvlistValue" in value) {
    return Object.fromEntries(((value.kvlistValue as { values?: Array<OtlpAttribute> }).values ?? []).map((kv) => [kv.key, plain(kv.value)]))
  }
  return null
}

const plainAttributes = (list: unknown, skip?: string): Record<string, unknown> | undefined => {
  const entries = (list as ReadonlyArray<OtlpAttribute> | undefined ?? []).filter((a) => a.key !== skip)
  return entries.length === 0 ? undefined : Object.fromEntries(entries.map((a) => [a.key, plain(a.value)]))
}

const typedAttributes = (record: Record<string, unknown> | undefined) => Object.entries(record ?? {}).map(([key, value]) => ({ key, value: anyValue(value) }))

export const compactSpan = (runId: string, scope: string, rowScope: string, span: OtlpSpan): CompactSpan => {
  const o = span as Record<string, unknown>
  const status = (o.status ?? {}) as { code?: number; message?: string }
  const dropped = [o.droppedAttributesCount, o.droppedEventsCount, o.droppedLinksCount].map((n) => Number(n ?? 0))
  const events = (o.events ?? []) as ReadonlyArray<Record<string, unknown>>
  const links = (o.links ?? []) as ReadonlyArray<Record<string, unknown>>
  const parent = o.parentSpanId as string | undefined
  const flags = Number(o.flags ?? DEFAULT_FLAGS)
  // Fields left undefined are left out of the JSON.
  return {
    i: span.spanId,
    n: String(o.name),
    s: span.startTimeUnixNano,
    d: Number(BigInt(String(o.endTimeUnixNano)) - BigInt(span.startTimeUnixNano)),
    p: parent === undefined ? undefined : parent === rootSpanId(runId) ? 0 as const : parent,
    t: span.traceId === runTraceId(runId) ? undefined : span.traceId,
    k: o.kind === 1 ? undefined : Number(o.kind),
    a: plainAttributes(o.attributes, RUN_ID),
    e: events.length === 0 ?
      undefined :
      events.map((e) => ({
        n: String(e.name),
        t: String(e.timeUnixNano),
        a: plainAttributes(e.attributes),
        x: Number(e.droppedAttributesCount ?? 0) || undefined
      })),
    l: links.length === 0 ? undefined : links.map((l) => ({
      i: String(l.spanId),
      t: String(l.traceId),
      f: Number(l.flags),
      a: plainAttributes(l.attributes),
      x: Number(l.droppedAttributesCount ?? 0) || undefined
    })),
    c: status.code === 0 || status.code === undefined ? undefined : status.code,
    m: status.message,
    f: flags === DEFAULT_FLAGS ? undefined : flags,
    ts: o.traceState as string | undefined,
    x: dropped.some((n) => n > 0) ? [dropped[0], dropped[1], dropped[2]] as const : undefined,
    sc: scope === rowScope ? undefined : scope
  }
}

/** The OTLP JSON span a compact one stands for, in `otlpSpan`'s field order. */
export const expandSpan = (runId: string, rowScope: string, c: CompactSpan): { readonly scope: string; readonly span: OtlpSpan } => {
  const status: Record<string, unknown> = { code: c.c ?? 0 }
  if (c.m !== undefined) status.message = c.m
  return {
    scope: c.sc ?? rowScope,
    span: {
      traceId: c.t ?? runTraceId(runId),
      spanId: c.i,
      ...(c.p !== undefined ? { parentSpanId: c.p === 0 ? rootSpanId(runId) : c.p } : {}),
      ...(c.ts !== undefined ? { traceState: c.ts } : {}),
      name: c.n,
      kind: c.k ?? 1,
      startTimeUnixNano: c.s,
      endTimeUnixNano: `${BigInt(c.s) + BigInt(c.d)}`,
      attributes: [{ key: RUN_ID, value: { stringValue: runId } }, ...typedAttributes(c.a)],
      droppedAttributesCount: c.x?.[0] ?? 0,
      events: (c.e ?? []).map((e) => ({ attributes: typedAttributes(e.a), name: e.n, timeUnixNano: e.t, droppedAttributesCount: e.x ?? 0 })),
      droppedEventsCount: c.x?.[1] ?? 0,
      status,
      links: (c.l ?? []).map((l) => ({ attributes: typedAttributes(l.a), spanId: l.i, traceId: l.t, droppedAttributesCount: l.x ?? 0, flags: l.f })),
      droppedLinksCount: c.x?.[2] ?? 0,
      flags: c.f ?? DEFAULT_FLAGS
    }
  }
}

/** One row of `run_spans` for spans of one run ended together: keyed by its first span. */
export interface SpanSetRow {
  readonly span_id: string
  readonly scope: string
  readonly start: string
  readonly spans: ReadonlyArray<CompactSpan>
}

export const spanSet = (runId: string, spans: ReadonlyArray<{ readonly scope: string; readonly span: OtlpSpan }>): SpanSetRow | undefined => {
  const first = spans[0]
  if (first === undefined) return undefined
  const start = spans.reduce((min, s) => (BigInt(s.span.startTimeUnixNano) < BigInt(min) ? s.span.startTimeUnixNano : min), first.span.startTimeUnixNano)
  return { span_id: first.span.spanId, scope: first.scope, start, spans: spans.map((s) => compactSpan(runId, s.scope, first.scope, s.span)) }
}
