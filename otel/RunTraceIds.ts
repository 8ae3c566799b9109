import { Tracer } from "effect"
import { createHash } from "node:crypto"
import { memoized } from "../platform/Memo.js"

/** Spans and log records carrying this attribute belong to the run it names and are stored. */
export const RUN_ID = "bp.run_id"

/** A run's trace id is its id: the trace is the same in every process that works on the run. */
export const runTraceId = (runId: string) => runId.replace(/-/g, "").toLowerCase()

/** The run's root span id, derived so that a resumed run's spans hang under the same root (a SHA-256, asked for every span a run stores). */
export const rootSpanId = memoized(4096, (runId) => createHash("sha256").update(`root:${runId}`).digest("hex").slice(0, 16))

/** The root span as a parent for the spans of a run's nodes. */
export const runRootSpan = (runId: string) => Tracer.externalSpan({ traceId: runTraceId(runId), spanId: rootSpanId(runId), sampled: true })

/** The span id of a step built outside the tracer (call_aie), the same whichever process builds it. */
export const stepSpanId = (runId: string, nodeId: string) => createHash("sha256").update(`step:${runId}/${nodeId}`).digest("hex").slice(0, 16)
