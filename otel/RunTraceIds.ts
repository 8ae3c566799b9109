import { Tracer } from "effect"
import { createHash } from "node:crypto"

/** Spans and log records carrying this attribute belong to the run it names and are stored. */
export const RUN_ID = "bp.run_id"

/** A run's trace id is its id: the trace is the same in every process that works on the run. */
export const runTraceId = (runId: string) => runId.replace(/-/g, "").toLowerCase()

// A SHA-256 each, asked for every span a run stores: the last few thousand runs' are kept.
const rootSpanIds = new Map<string, string>()
const ROOT_SPAN_IDS_KEPT = 4096

/** The run's root span id, derived so that a resumed run's spans hang under the same root. */
export const rootSpanId = (runId: string) => {
  const known = rootSpanIds.get(runId)
  if (known !== undefined) return known
  if (rootSpanIds.size >= ROOT_SPAN_IDS_KEPT) rootSpanIds.clear()
  const id = createHash("sha256").update(`root:${runId}`).digest("hex").slice(0, 16)
  rootSpanIds.set(runId, id)
  return id
}

/** The root span as a parent for the spans of a run's nodes. */
export const runRootSpan = (runId: string) => Tracer.externalSpan({ traceId: runTraceId(runId), spanId: rootSpanId(runId), sampled: true })

/** The span id of a step built outside the tracer (call_aie), the same whichever process builds it. */
export const stepSpanId = (runId: string, nodeId: string) => createHash("sha256").update(`step:${runId}/${nodeId}`).digest("hex").slice(0, 16)
