import { Schema } from "effect"

/**
 * A run's contract in one place: its statuses and their transitions as data, its steps'
 * statuses, and the events of its stream with their payloads. The kernel writes no status move
 * the table does not allow (`checkWrite`), the run API and the stream use these schemas, the
 * console reads them, and the property tests walk the table.
 */

export const RunStatuses = ["pending", "running", "paused", "completed", "failed", "cancelled", "skipped"] as const
export const RunStatus = Schema.Literal(...RunStatuses)
export type RunStatus = typeof RunStatus.Type

/** 01 lists completed, failed and cancelled; a skipped run (recorded, never run) is final too. */
export const TerminalStatuses: ReadonlyArray<RunStatus> = ["completed", "failed", "cancelled", "skipped"]
export const isTerminal = (s: RunStatus) => TerminalStatuses.includes(s)

export const StepStatus = Schema.Literal("running", "completed", "failed", "skipped", "cancelled")
export type StepStatus = typeof StepStatus.Type

export type RunTransition = "start" | "pause" | "resume" | "complete" | "fail" | "cancel" | "skip"

/** 01 "Run status": every move a run makes is one of these. */
export const RunTransitions: Readonly<Record<RunTransition, { readonly from: ReadonlyArray<RunStatus>; readonly to: RunStatus }>> = {
  start: { from: ["pending"], to: "running" },
  pause: { from: ["running"], to: "paused" },
  resume: { from: ["paused"], to: "running" },
  complete: { from: ["running"], to: "completed" },
  fail: { from: ["pending", "running", "paused"], to: "failed" },
  cancel: { from: ["pending", "running", "paused"], to: "cancelled" },
  skip: { from: ["pending"], to: "skipped" }
}

/** The next status, or undefined when the transition is not allowed in this status. */
export const next = (status: RunStatus, transition: RunTransition): RunStatus | undefined =>
  RunTransitions[transition].from.includes(status) ? RunTransitions[transition].to : undefined

/**
 * Whether one write may take a run from `from` to `to`: a path of the table's transitions that
 * does not leave `from` as it is (the kernel folds a fresh run's start into its first node's
 * commit: pending -> running -> completed in one write).
 */
export const reaches = (from: RunStatus, to: RunStatus): boolean => {
  const seen = new Set<RunStatus>()
  const frontier: Array<RunStatus> = [from]
  while (frontier.length > 0) {
    const at = frontier.pop()!
    for (const t of Object.values(RunTransitions)) {
      if (!t.from.includes(at) || seen.has(t.to)) continue
      if (t.to === to) return true
      seen.add(t.to)
      if (!isTerminal(t.to)) frontier.push(t.to)
    }
  }
  return false
}

/** The statuses of `from` a write to `to` may not leave (empty: the write follows the table). */
export const illegalSources = (from: ReadonlyArray<RunStatus>, to: RunStatus) => from.filter((s) => !reaches(s, to))

// The stream: every event carries `type` and `run_id` (the SSE encoder adds `run_id`), then its payload.

const step = { step_id: Schema.String, node_id: Schema.String }

const event = <T extends string, F extends Schema.Struct.Fields>(type: T, fields: F) => Schema.Struct({ type: Schema.Literal(type), ...fields })

export const StepStarted = event("step_started", step)
export const StepCompleted = event("step_completed", { ...step, status: Schema.Literal("completed") })
/**
 * Why a step failed, so a caller knows whether trying again can help: `configuration` (the node or
 * its agent type is set up wrong: the same version fails again), `unavailable` (no runtime for the
 * node or agent type), `dependency` (another system refused or failed: a mail server, a desk, a
 * child run) and `model` (the model failed after its retries, or kept answering off-schema).
 */
export const FailureKind = Schema.Literal("configuration", "unavailable", "dependency", "model")
export type FailureKind = typeof FailureKind.Type
export const isRetryable = (kind: FailureKind) => kind === "dependency" || kind === "model"

export const StepFailed = event("step_failed", {
  ...step,
  error: Schema.String,
  error_kind: FailureKind,
  /** The node type's own reason code, when it gave one. */
  error_code: Schema.optional(Schema.String),
  retryable: Schema.Boolean
})
export const StepSkipped = event("step_skipped", { node_id: Schema.String, reason: Schema.optional(Schema.Literal("rejected")) })
export const Token = event("token", { ...step, delta: Schema.String })
export const ToolCalled = event("tool_called", {
  ...step,
  tool_call_id: Schema.String,
  tool_id: Schema.String,
  tool_source: Schema.String,
  call_status: Schema.Literal("success", "error"),
  duration_ms: Schema.Number,
  dry_run: Schema.optional(Schema.Boolean)
})
export const AgentCompleted = event("agent_completed", { ...step, output: Schema.Unknown })
export const RunPaused = event("run_paused", { status: Schema.Literal("paused"), node_id: Schema.String, request_id: Schema.optional(Schema.String) })
export const RunResumed = event("run_resumed", { status: Schema.Literal("running"), node_id: Schema.String })
/** The run waits in `pending` for a slot of its tenant's runs in flight (`max_runs_in_flight`); it starts in the order its tenant's runs were started in. */
export const RunQueued = event("run_queued", { status: Schema.Literal("pending"), reason: Schema.Literal("tenant_runs_in_flight"), limit: Schema.Number })
export const RunCompleted = event("run_completed", { status: Schema.Literal("completed") })
export const RunFailed = event("run_failed", { status: Schema.Literal("failed"), error: Schema.NullOr(Schema.String) })
export const RunCancelled = event("run_cancelled", { status: Schema.Literal("cancelled") })
export const RunSkipped = event("run_skipped", { status: Schema.Literal("skipped"), skip_reason: Schema.String })
/** A chat turn's answer, written with the run's end (services/chat). */
export const AssistantMessage = event("assistant_message", {
  message_id: Schema.NullOr(Schema.String),
  reply_to: Schema.String,
  session_id: Schema.String,
  persisted: Schema.Boolean,
  message_status: Schema.String,
  content: Schema.String,
  sources: Schema.Array(Schema.Unknown),
  response_buttons: Schema.Array(Schema.Unknown)
})

/** Every event of a run's stream, told apart by `type`. */
export const RunStreamEvent = Schema.Union(
  StepStarted,
  StepCompleted,
  StepFailed,
  StepSkipped,
  Token,
  ToolCalled,
  AgentCompleted,
  RunPaused,
  RunResumed,
  RunQueued,
  RunCompleted,
  RunFailed,
  RunCancelled,
  RunSkipped,
  AssistantMessage
)
export type RunStreamEvent = typeof RunStreamEvent.Type
export type RunEventType = RunStreamEvent["type"]

/** The events after which a run's stream ends: its terminal statuses' events. */
export const FinalEvents: ReadonlyArray<RunEventType> = ["run_completed", "run_failed", "run_cancelled", "run_skipped"]
export const isFinalEvent = (type: string) => (FinalEvents as ReadonlyArray<string>).includes(type)

/** The event a run's end writes, by its terminal status. */
export const finalEventOf = (status: "completed" | "failed" | "cancelled" | "skipped"): RunEventType => `run_${status}`
