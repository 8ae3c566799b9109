import { type Attributes, type HrTime, type Link, SpanKind, SpanStatusCode } from "@opentelemetry/api"
import type { Resource } from "@opentelemetry/resources"
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base"
import { RUN_HEADER, RunRow } from "../schemas/RunRow.js"
import { rootSpanId, RUN_ID, runTraceId } from "./RunTraceIds.js"

export const RUNS_SCOPE = "builder-platform/runs"

/** What a run's root span is built from: these columns of its row. */
export const RunRecordForTrace = RunRow.pick(
  ...RUN_HEADER,
  "error",
  "parent_run_id",
  "parent_node_id",
  "created_at",
  "finished_at"
)
export type RunRecordForTrace = typeof RunRecordForTrace.Type

export interface PauseEvent {
  readonly type: "run_paused" | "run_resumed"
  readonly at: Date
  readonly node_id: string | undefined
  readonly request_id: string | undefined
}

const hr = (date: Date): HrTime => {
  const ms = date.getTime()
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000]
}
const duration = (start: Date, end: Date): HrTime => hr(new Date(Math.max(0, end.getTime() - start.getTime())))

const clean = (attributes: Record<string, string | number | boolean | null | undefined>): Attributes =>
  Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== null && v !== undefined)) as Attributes

const link = (traceId: string, spanId: string, kind: string): Link => ({
  context: { traceId, spanId, traceFlags: 1 },
  attributes: { "bp.link": kind }
})

const spanOf = (input: {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string | undefined
  readonly start: Date
  readonly end: Date
  readonly status: { code: SpanStatusCode; message?: string }
  readonly attributes: Attributes
  readonly events?: ReadonlyArray<TimedEvent>
  readonly links?: ReadonlyArray<Link>
  readonly resource: Resource
}): ReadableSpan => ({
  name: input.name,
  kind: SpanKind.INTERNAL,
  spanContext: () => ({ traceId: input.traceId, spanId: input.spanId, traceFlags: 1 }),
  ...(input.parentSpanId !== undefined ? { parentSpanContext: { traceId: input.traceId, spanId: input.parentSpanId, traceFlags: 1 } } : {}),
  startTime: hr(input.start),
  endTime: hr(input.end),
  status: input.status,
  attributes: input.attributes,
  links: [...(input.links ?? [])],
  events: [...(input.events ?? [])],
  duration: duration(input.start, input.end),
  ended: true,
  resource: input.resource,
  instrumentationScope: { name: RUNS_SCOPE },
  droppedAttributesCount: 0,
  droppedEventsCount: 0,
  droppedLinksCount: 0
})

const terminal = new Set(["completed", "failed", "cancelled"])

/**
 * A run's root span, built from the run record: it spans the run from acceptance to its end (or
 * to now while it goes on), carries HITL pauses and resumes as events, and links a child run to
 * its parent's trace.
 */
export const rootSpan = (run: RunRecordForTrace, pauses: ReadonlyArray<PauseEvent>, resource: Resource, now: Date): ReadableSpan =>
  spanOf({
    name: `run ${run.workflow_name}`,
    traceId: runTraceId(run.id),
    spanId: rootSpanId(run.id),
    start: run.created_at,
    // PostgreSQL keeps microseconds and a Date milliseconds: the end is rounded up, so that the
    // root never ends before a span it contains (the last node's span ends just before the commit).
    end: run.finished_at === null ? now : new Date(run.finished_at.getTime() + 1),
    status: run.status === "completed"
      ? { code: SpanStatusCode.OK }
      : run.status === "failed"
      ? { code: SpanStatusCode.ERROR, message: run.error ?? "run failed" }
      : { code: SpanStatusCode.UNSET },
    attributes: clean({
      [RUN_ID]: run.id,
      "workflow.id": run.workflow_id,
      "workflow.name": run.workflow_name,
      "workflow.version": run.version,
      "run.status": run.status,
      "run.trigger_type": run.trigger_type,
      "run.is_dry_run": run.is_dry_run,
      "run.in_progress": terminal.has(run.status) ? undefined : true,
      "run.error": run.error,
      "bp.parent_run_id": run.parent_run_id,
      "bp.parent_node_id": run.parent_node_id
    }),
    events: pauses.map((p) => ({
      name: p.type === "run_paused" ? "hitl.paused" : "hitl.resumed",
      time: hr(p.at),
      attributes: clean({ "node.id": p.node_id, "hitl.request_id": p.request_id })
    })),
    links: run.parent_run_id === null ? [] : [link(runTraceId(run.parent_run_id), rootSpanId(run.parent_run_id), "parent_run")],
    resource
  })
