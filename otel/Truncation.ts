import type { TraceDocument } from "./TraceDocument.js"

export const TRUNCATION_MARK = "…[truncated]"
const SMALLEST_KEPT = 64

const byteSize = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

type Holder = { stringValue: string }

/** Every string value a document carries in attributes and log bodies: what truncation may shorten. */
const stringValues = (doc: TraceDocument): Array<Holder> => {
  const out: Array<Holder> = []
  const fromAttributes = (attributes: unknown) => {
    for (const a of (attributes ?? []) as ReadonlyArray<{ value: Partial<Holder> }>) {
      if (typeof a.value.stringValue === "string") out.push(a.value as Holder)
    }
  }
  for (const rs of doc.traces.resourceSpans) {
    for (const ss of rs.scopeSpans) {
      for (const span of ss.spans) {
        fromAttributes(span.attributes)
        for (const e of (span.events ?? []) as ReadonlyArray<{ attributes?: unknown }>) fromAttributes(e.attributes)
      }
    }
  }
  for (const rl of doc.logs.resourceLogs) {
    for (const sl of rl.scopeLogs) {
      for (const log of sl.logRecords) {
        fromAttributes(log.attributes)
        if ("stringValue" in log.body) out.push(log.body)
      }
    }
  }
  return out
}

/** Cuts every value longer than `limit` characters; returns whether anything was cut. */
const cutTo = (values: ReadonlyArray<Holder>, originals: ReadonlyArray<string>, limit: number) => {
  let cut = false
  values.forEach((h, i) => {
    const original = originals[i]
    h.stringValue = original.length > limit ? original.slice(0, limit) + TRUNCATION_MARK : original
    cut ||= original.length > limit
  })
  return cut
}

/**
 * Fits a trace document under `capBytes`: the largest attribute values are shortened first (every
 * value is cut to the longest length that fits), then the log records go. The cap counts the whole
 * response, `envelope` included. Undefined when even that is not enough (the caller answers 413).
 */
export const fitToCap = (
  doc: TraceDocument,
  capBytes: number,
  /** What the response adds around the document. */
  envelope: Record<string, unknown> = {}
): { readonly document: TraceDocument; readonly truncated: boolean } | undefined => {
  // The document's braces are shared with the envelope's; `truncated` may flip to true.
  capBytes -= byteSize({ ...envelope, truncated: false }) + 4
  if (byteSize(doc) <= capBytes) return { document: doc, truncated: false }
  const copy = structuredClone<TraceDocument>(doc)
  const values = stringValues(copy)
  const originals = values.map((v) => v.stringValue)
  const longest = Math.max(0, ...originals.map((o) => o.length))
  // The largest limit that fits: binary search on the measured size.
  let low = SMALLEST_KEPT
  let high = longest
  let best: number | undefined = undefined
  while (low <= high) {
    const mid = Math.floor((low + high) / 2)
    cutTo(values, originals, mid)
    if (byteSize(copy) <= capBytes) {
      best = mid
      low = mid + 1
    } else {
      high = mid - 1
    }
  }
  if (best !== undefined) {
    cutTo(values, originals, best)
    return { document: copy, truncated: true }
  }
  cutTo(values, originals, SMALLEST_KEPT)
  const withoutLogs: TraceDocument = { ...copy, logs: { resourceLogs: [] } }
  return byteSize(withoutLogs) <= capBytes ? { document: withoutLogs, truncated: true } : undefined
}
