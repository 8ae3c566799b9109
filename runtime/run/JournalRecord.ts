import { deflateRawSync, inflateRawSync } from "node:zlib"
import type { CompactSpan } from "../../otel/CompactSpan.js"
import { memoized } from "../../platform/Memo.js"
import { derivedUuidV7, uuidV7Time } from "../../platform/TimedId.js"
import type { EventWrite, SpanWrite } from "./Batch.js"

/**
 * One journal commit's events (and the spans that ended with them) as one stored record: a row of
 * `run_events` whose `seq` is its last event's number and whose `body` is this format. A run's
 * small events are mostly the same keys and words, so each record is deflated with a preset
 * dictionary of them (what zstd calls a trained dictionary): a node's end (three events, three
 * spans, ~1 KB of JSON) takes ~200 bytes. The first byte is the format; a dictionary is never
 * changed once records were written with it (a new one is a new format byte).
 *
 * Inside, before deflating: `{"e": [event...], "s": [spanSet...]}`; an event is `{t, p, k?, i?, d?}`
 * (type, payload, its once-per-run key, its span id, `d` when its `step_id` was left out because it
 * is the run's derived one for the node, `q` its number when the events are not numbered on to the
 * record's last); a span set is `{c?, x, d?}` (scope when not the
 * platform's, compact spans, indexes of spans whose `step.id` attribute was left out the same way).
 */

const FORMAT_1 = 1
const PLATFORM_SCOPE = "builder-platform"

// Least frequent first: deflate reaches the end of its window soonest.
const DICTIONARY_1 = Buffer.from(
  [
    `{"t":"assistant_message","p":{"message_id":"","reply_to":"","session_id":"","persisted":true,"message_status":"completed","content":"","sources":[],"response_buttons":[]}}`,
    `{"t":"tool_called","p":{"tool_call_id":"","tool_id":"","tool_source":"","call_status":"success","duration_ms":,"dry_run":false,"node_id":""},"i":""}`,
    `{"t":"step_failed","p":{"error":"","error_kind":"dependency","error_code":"","retryable":false,"node_id":""},"d":1}`,
    `{"t":"run_cancelled","p":{"status":"cancelled"}}{"t":"run_skipped","p":{"status":"skipped","skip_reason":""}}`,
    `{"t":"run_failed","p":{"status":"failed","error":""}}{"t":"step_skipped","p":{"node_id":"","reason":"rejected"}}`,
    `{"t":"run_paused","p":{"status":"paused","node_id":"","request_id":""},"k":"run_paused:"}`,
    `{"t":"run_resumed","p":{"status":"running","node_id":""},"k":"run_resumed:"}`,
    `{"t":"run_queued","p":{"status":"pending","reason":"tenant_runs_in_flight","limit":},"k":"run_queued"}`,
    `"s":[{"x":[{"a":{"llm.input":"user: ","llm.output":"","llm.latency_ms":,"llm.instructions":"","llm.finish_reason":"stop",`,
    `"gen_ai.request.model":"","gen_ai.operation.name":"chat","gen_ai.response.model":"","gen_ai.usage.input_tokens":,`,
    `"gen_ai.usage.total_tokens":,"gen_ai.usage.output_tokens":},"c":1,"d":,"i":"","n":"llm.call","p":"","s":"17"},`,
    `{"a":{"agent.type":"respond","agent.type_version":"v1"},"c":1,"d":,"i":"","n":"agent.run","p":"","s":"17"},`,
    `{"a":{"node.id":"","node.name":"","node.type":"agent","step.status":"completed"},"c":1,"d":,"f":769,"i":"","n":"node ","p":0,"s":"17"}],"d":[2]}]}`,
    `{"t":"step_started","p":{"node_id":""},"k":"step_started:","i":"","d":1}`,
    `{"e":[{"t":"token","p":{"delta":"","node_id":""},"i":"","d":1},{"t":"agent_completed","p":{"output":{"text":""},"node_id":""},"k":"agent_completed:","i":"","d":1},`,
    `{"t":"step_completed","p":{"status":"completed","node_id":""},"k":"step_completed:","i":"","d":1}`,
    `{"t":"run_completed","p":{"status":"completed"},"k":"run_completed"}]}`
  ].join("")
)

// A SHA-256 each: every event of a node is written and read back with its step's id, and streams
// reopened by the hundred read the same runs' records again and again.
const stepIdOf = memoized(4096, (key) => derivedUuidV7(uuidV7Time(key.slice(0, key.indexOf(":"))) ?? 0, `step:${key}`))

/** The id of a node's step in a run: derived from both, so the journal need not store it with every event. */
export const derivedStepId = (runId: string, nodeId: string) => stepIdOf(`${runId}:${nodeId}`)

interface StoredRecordEvent {
  readonly t: string
  readonly p: Record<string, unknown>
  readonly k?: string
  readonly i?: string
  readonly d?: 1
  /** The event's number, when the record's events are not numbered on to its last (detail was taken out). */
  readonly q?: number
}

interface StoredSpanSet {
  readonly c?: string
  readonly x: ReadonlyArray<CompactSpan>
  readonly d?: ReadonlyArray<number>
}

/** An event of a record as read back: its number, and what the commit wrote. */
export interface RecordEvent {
  readonly seq: number
  readonly type: string
  readonly payload: Record<string, unknown>
  readonly key: string | undefined
  readonly spanId: string | undefined
}

export interface RecordSpans {
  readonly scope: string
  readonly spans: ReadonlyArray<CompactSpan>
}

export interface JournalRecord {
  readonly events: ReadonlyArray<RecordEvent>
  readonly spans: ReadonlyArray<RecordSpans>
}

const isDerived = (runId: string, nodeId: unknown, stepId: unknown) =>
  typeof nodeId === "string" && typeof stepId === "string" && stepId === derivedStepId(runId, nodeId)

/** An event as a record takes it: as a commit writes it, or as read back from a record. */
type EventInput = Omit<EventWrite, "type"> & { readonly type: string }

const storedEvent = (runId: string, e: EventInput, seq?: number): StoredRecordEvent => {
  const { step_id, ...rest } = e.payload
  const derived = isDerived(runId, e.payload.node_id, step_id)
  return {
    t: e.type,
    p: derived ? rest : e.payload,
    ...(e.key !== undefined ? { k: e.key } : {}),
    ...(e.spanId !== undefined ? { i: e.spanId } : {}),
    ...(derived ? { d: 1 as const } : {}),
    ...(seq !== undefined ? { q: seq } : {})
  }
}

const storedSpans = (runId: string, set: SpanWrite): StoredSpanSet => {
  const derived: Array<number> = []
  const x = set.spans.map((span, i) => {
    const a = span.a
    if (a === undefined || !isDerived(runId, a["node.id"], a["step.id"])) return span
    derived.push(i)
    const { "step.id": _, ...rest } = a
    return { ...span, a: rest }
  })
  return { ...(set.scope !== PLATFORM_SCOPE ? { c: set.scope } : {}), x, ...(derived.length > 0 ? { d: derived } : {}) }
}

/**
 * A record that fits, with the dictionary, in a 4 KB window (most of a run's commits) is
 * compressed with a small window and hash: zlib allocates and clears ~20 KB for it instead of
 * ~260 KB, at each commit (measured: 0.38 ms of a lone 3-node run's CPU went to it). Every
 * reader inflates with the full window, which reads either.
 */
const SMALL_WINDOW = { dictionary: DICTIONARY_1, windowBits: 12, memLevel: 4 } as const
const FULL_WINDOW = { dictionary: DICTIONARY_1 } as const
/** zlib's MIN_LOOKAHEAD: a match reaches back at most the window less this. */
const LOOKAHEAD = 262
const SMALL_RECORD = (1 << SMALL_WINDOW.windowBits) - LOOKAHEAD - DICTIONARY_1.length

const deflated = (stored: { readonly e: ReadonlyArray<StoredRecordEvent>; readonly s?: ReadonlyArray<StoredSpanSet> }) => {
  const text = JSON.stringify(stored)
  return Buffer.concat([Buffer.of(FORMAT_1), deflateRawSync(text, text.length <= SMALL_RECORD ? SMALL_WINDOW : FULL_WINDOW)])
}

/** A commit's events and spans as one record's body. */
export const encodeRecord = (runId: string, events: ReadonlyArray<EventWrite>, spans: ReadonlyArray<SpanWrite>): Buffer =>
  deflated({ e: events.map((e) => storedEvent(runId, e)), ...(spans.length > 0 ? { s: spans.map((s) => storedSpans(runId, s)) } : {}) })

/** Whether a commit's record holds what the detail retention removes (streamed text, spans). */
export const recordHasDetail = (events: ReadonlyArray<EventWrite>, spans: ReadonlyArray<SpanWrite>) =>
  spans.length > 0 || events.some((e) => e.type === "token")

/** Whether a commit's record holds events written once per run (their keys are read back when the run is loaded). */
export const recordHasKeys = (events: ReadonlyArray<EventWrite>) => events.some((e) => e.key !== undefined)

/** A record's events (numbered up to `lastSeq`) and spans, as written. */
export const decodeRecord = (runId: string, lastSeq: number, body: Uint8Array): JournalRecord => {
  if (body[0] !== FORMAT_1) throw new Error(`Journal record of run ${runId} at ${lastSeq} has an unknown format ${body[0]}`)
  const stored = JSON.parse(inflateRawSync(body.subarray(1), { dictionary: DICTIONARY_1 }).toString("utf8")) as {
    readonly e: ReadonlyArray<StoredRecordEvent>
    readonly s?: ReadonlyArray<StoredSpanSet>
  }
  const first = lastSeq - stored.e.length + 1
  return {
    events: stored.e.map((e, i) => ({
      seq: e.q ?? first + i,
      type: e.t,
      payload: e.d === 1 && typeof e.p.node_id === "string" ? { ...e.p, step_id: derivedStepId(runId, e.p.node_id) } : e.p,
      key: e.k,
      spanId: e.i
    })),
    spans: (stored.s ?? []).map((set) => ({
      scope: set.c ?? PLATFORM_SCOPE,
      spans: set.d === undefined ? set.x : set.x.map((span, i) => {
        const nodeId = span.a?.["node.id"]
        return set.d?.includes(i) === true && typeof nodeId === "string" ? { ...span, a: { ...span.a, "step.id": derivedStepId(runId, nodeId) } } : span
      })
    }))
  }
}

/** A record without its detail (streamed text, spans), or undefined when nothing else is left of it; its events keep their numbers. */
export const withoutDetail = (runId: string, lastSeq: number, body: Uint8Array): Buffer | undefined => {
  const kept = decodeRecord(runId, lastSeq, body).events.filter((e) => e.type !== "token")
  if (kept.length === 0) return undefined
  return deflated({
    e: kept.map((e) => storedEvent(runId, e, e.seq))
  })
}
