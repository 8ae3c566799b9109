import { Effect } from "effect"
import { json, percentile } from "./support.js"

/** A span of a run's trace: its name, start (µs from the run's first span) and duration (ms). */
export interface TracedSpan {
  readonly name: string
  readonly at: number
  readonly d: number
}

/** A run's spans from its trace (`GET /runs/{id}/trace`), in start order. */
export const traceSpans = (base: string, token: string, runId: string) =>
  json(base, token, "GET", `/api/v1/workflow/runs/${runId}/trace`).pipe(Effect.map((trace): Array<TracedSpan> => {
    type Span = { name: string; startTimeUnixNano: string; endTimeUnixNano: string }
    const resources = (trace.traces as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Span> }> }> }).resourceSpans
    const all = resources.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
    const t0 = Math.min(...all.map((s) => Number(BigInt(s.startTimeUnixNano) / 1000n)))
    return all
      .map((s) => ({
        name: s.name,
        at: Number(BigInt(s.startTimeUnixNano) / 1000n) - t0,
        d: Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / 1e6
      }))
      .sort((a, b) => a.at - b.at)
  }))

/**
 * Where lone runs' time goes: each span of their traces (the n-th of its name in a run) with its
 * median start after the run's first span and its median duration, in order of start.
 */
export const spanMedians = (base: string, token: string, runIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const byKey = new Map<string, { at: Array<number>; d: Array<number> }>()
    for (const id of runIds) {
      const seen = new Map<string, number>()
      for (const span of yield* traceSpans(base, token, id)) {
        const n = (seen.get(span.name) ?? 0) + 1
        seen.set(span.name, n)
        const key = `${span.name}#${n}`
        const entry = byKey.get(key) ?? { at: [], d: [] }
        entry.at.push(span.at / 1000)
        entry.d.push(span.d)
        byKey.set(key, entry)
      }
    }
    const median = (values: Array<number>) => percentile([...values].sort((a, b) => a - b), 0.5)
    return [...byKey]
      .filter(([, v]) => v.at.length >= runIds.length / 2)
      .map(([key, v]) => ({ key, at: median(v.at), d: median(v.d) }))
      .sort((a, b) => a.at - b.at)
      .map((s) => `  ${s.at.toFixed(2).padStart(7)} ms +${s.d.toFixed(2).padStart(6)} ms  ${s.key}`)
  })
