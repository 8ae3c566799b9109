import type { Context } from "@opentelemetry/api"
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { classify } from "./Redaction.js"

const EVERY_MS = 60_000
// Classed "operational" for the API's trace views, but they hold the data a tool was given and gave back.
const TOOL_DATA = new Set(["tool.arguments", "tool.result"])

/**
 * Reports failures of an export (collector down, refused) at most once a minute, with how many
 * more there were meanwhile: an exporter otherwise fails silently.
 */
export const onceAMinute = (report: (message: string) => void) => {
  let last = 0
  let missed = 0
  return (what: string, error: unknown) => {
    const now = Date.now()
    if (now - last < EVERY_MS) {
      missed += 1
      return
    }
    report(`${what} failed${missed > 0 ? ` (${missed} more failure(s) since the last report)` : ""}: ${error instanceof Error ? error.message : String(error)}`)
    last = now
    missed = 0
  }
}

/** A span exporter that reports its failed exports through `report`. */
export class ReportingSpanExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter, private readonly report: (what: string, error: unknown) => void) {}
  export(spans: Array<ReadableSpan>, done: Parameters<SpanExporter["export"]>[1]): void {
    this.inner.export(spans, (result) => {
      // 0 is ExportResultCode.SUCCESS.
      if (result.code !== 0) this.report(`Exporting ${spans.length} span(s) over OTLP`, result.error ?? "the collector refused them")
      done(result)
    })
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown()
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve()
  }
}

const isContent = (key: string) => classify(key) === "content" || TOOL_DATA.has(key)

const withoutContent = (attributes: ReadableSpan["attributes"]) => Object.fromEntries(Object.entries(attributes).filter(([key]) => !isContent(key)))

/**
 * Hands spans to `inner` without prompt, instruction, input, output and tool-data attributes
 * (OTEL_EXPORT_CONTENT unset): what leaves the platform for a collector is timing, status,
 * models and tokens. The stored copies behind the API's trace endpoints are untouched.
 */
export class ContentFreeProcessor implements SpanProcessor {
  constructor(private readonly inner: SpanProcessor) {}
  onStart(span: Span, context: Context): void {
    this.inner.onStart(span, context)
  }
  onEnd(span: ReadableSpan): void {
    const stripped: ReadableSpan = Object.create(span, {
      attributes: { value: withoutContent(span.attributes) },
      events: { value: span.events.map((e) => ({ ...e, attributes: e.attributes === undefined ? undefined : withoutContent(e.attributes) })) }
    })
    this.inner.onEnd(stripped)
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown()
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush()
  }
}
