import { type Attributes, type AttributeValue, type Link, SpanKind, SpanStatusCode } from "@opentelemetry/api"
import type { Resource } from "@opentelemetry/resources"
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base"
import { Cause, type Context, type Exit, Inspectable, Option, Tracer } from "effect"
import { randomFillSync } from "node:crypto"

const pool = Buffer.alloc(4096)
let offset = pool.length

/** Random hex ids from a pooled buffer: one system call per few hundred spans. */
const randomHex = (bytes: number) => {
  if (offset + bytes > pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const hex = pool.toString("hex", offset, offset + bytes)
  offset += bytes
  return hex
}

const KINDS: Record<Tracer.SpanKind, SpanKind> = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  server: SpanKind.SERVER,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER
}

const hrTime = (nanos: bigint): [number, number] => [Number(nanos / 1_000_000_000n), Number(nanos % 1_000_000_000n)]

/** The attribute value the OpenTelemetry bridge records for an Effect attribute. */
const attributeValue = (value: unknown): AttributeValue =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? value
    : typeof value === "bigint"
    ? value.toString()
    : Inspectable.toStringUnknown(value)

const attributesOf = (record: Readonly<Record<string, unknown>>): Attributes => {
  const out: Attributes = {}
  for (const key in record) out[key] = attributeValue(record[key])
  return out
}

const linkOf = (link: Tracer.SpanLink): Link => ({
  context: { traceId: link.span.traceId, spanId: link.span.spanId, traceFlags: link.span.sampled ? 1 : 0, isRemote: link.span._tag === "ExternalSpan" },
  attributes: attributesOf(link.attributes)
})

export interface LightTracerOptions {
  readonly resource: Resource
  readonly scope: string
  /** Spans carrying this attribute are kept: they are handed to `onEnd` when they end. */
  readonly keepAttribute: string
  readonly onEnd: (span: ReadableSpan) => void
}

/**
 * A span as the OpenTelemetry bridge records it (status, exception event, interruption label),
 * built into a ReadableSpan only when it is kept.
 */
class LightSpan implements Tracer.Span {
  readonly _tag = "Span"
  readonly spanId: string
  readonly traceId: string
  readonly sampled: boolean
  readonly attributes = new Map<string, unknown>()
  readonly links: Array<Tracer.SpanLink>
  status: Tracer.SpanStatus
  private events: Array<TimedEvent> | undefined

  constructor(
    readonly options: LightTracerOptions,
    readonly name: string,
    readonly parent: Option.Option<Tracer.AnySpan>,
    readonly context: Context.Context<never>,
    links: ReadonlyArray<Tracer.SpanLink>,
    startTime: bigint,
    readonly kind: Tracer.SpanKind
  ) {
    this.traceId = parent._tag === "Some" ? parent.value.traceId : randomHex(16)
    this.spanId = randomHex(8)
    this.sampled = parent._tag === "Some" ? parent.value.sampled : true
    this.links = links.slice()
    this.status = { _tag: "Started", startTime }
  }

  attribute(key: string, value: unknown): void {
    this.attributes.set(key, value)
  }

  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    ;(this.events ??= []).push({ name, time: hrTime(startTime), ...(attributes !== undefined ? { attributes: attributesOf(attributes) } : {}) })
  }

  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    this.links.push(...links)
  }

  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    const startTime = this.status.startTime
    this.status = { _tag: "Ended", startTime, endTime, exit }
    if (typeof this.attributes.get(this.options.keepAttribute) !== "string") return
    this.options.onEnd(this.readable(startTime, endTime, exit))
  }

  private readable(startTime: bigint, endTime: bigint, exit: Exit.Exit<unknown, unknown>): ReadableSpan {
    const attributes: Attributes = {}
    for (const [key, value] of this.attributes) attributes[key] = attributeValue(value)
    const events = this.events ?? []
    let status: { code: SpanStatusCode; message?: string } = { code: SpanStatusCode.OK }
    if (exit._tag === "Failure") {
      if (Cause.isInterruptedOnly(exit.cause)) {
        // the SDK keeps a status message only with ERROR
        attributes["span.label"] = "⚠︎ Interrupted"
        attributes["status.interrupted"] = true
      } else {
        const first = Cause.prettyErrors(exit.cause)[0]
        if (first !== undefined) {
          const exception: Attributes = { "exception.type": first.name, "exception.message": first.message }
          exception["exception.stacktrace"] = Cause.pretty(exit.cause, { renderErrorCause: true })
          events.push({ name: "exception", attributes: exception, time: hrTime(endTime) })
          status = { code: SpanStatusCode.ERROR, message: first.message }
        }
      }
    }
    const parent = Option.getOrUndefined(this.parent)
    const context = { traceId: this.traceId, spanId: this.spanId, traceFlags: this.sampled ? 1 : 0 }
    const start = hrTime(startTime)
    const end = hrTime(endTime)
    const duration = hrTime(endTime > startTime ? endTime - startTime : 0n)
    return {
      name: this.name,
      kind: KINDS[this.kind],
      spanContext: () => context,
      ...(parent !== undefined
        ? {
          parentSpanContext: { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.sampled ? 1 : 0, isRemote: parent._tag === "ExternalSpan" }
        }
        : {}),
      startTime: start,
      endTime: end,
      status,
      attributes,
      links: this.links.map(linkOf),
      events,
      duration,
      ended: true,
      resource: this.options.resource,
      instrumentationScope: { name: this.options.scope },
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0
    }
  }
}

/**
 * The tracer when spans are not exported: every span is a plain object (no context manager around
 * each fiber step, no SDK span), and only the spans that carry `keepAttribute` (a run's) become
 * ReadableSpans for the store. With an OTLP endpoint the OpenTelemetry SDK tracer is used instead.
 */
export const makeLightTracer = (options: LightTracerOptions): Tracer.Tracer =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind) => new LightSpan(options, name, parent, context, links, startTime, kind),
    context: passthroughContext
  })

/**
 * A context that only calls its function, marked as such: the fiber runtime (patches/effect) then
 * runs each step itself instead of handing this a new closure per step (7-8% of a run's allocation).
 */
const passthroughContext: Tracer.Tracer["context"] = Object.assign(<X>(f: () => X): X => f(), {
  [Symbol.for("effect/Tracer/passthroughContext")]: true
})
