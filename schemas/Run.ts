import { Schema } from "effect"
import { contractFields } from "./ContractFields.js"
import { WorkflowId } from "./Ids.js"
import { DateTimeParam, Page, pageSizeParam } from "./Pagination.js"
import { IntFromString } from "./QueryParams.js"
import { RunStatus } from "./RunLifecycle.js"
import { HitlRow, ModelUsage, RUN_HEADER, RunRow, StepRow, TriggerType } from "./RunRow.js"

export { ModelUsage, RunStatus, TriggerType }

/** The run row's columns the contract shows (a null one absent): see `presentOnly`. */
export const RUN_FIELDS = [
  ...RUN_HEADER,
  "created_at",
  "started_at",
  "finished_at",
  "parent_run_id",
  "session_id",
  "error",
  "scheduled_fire_time",
  "skip_reason",
  "retention_hold"
] as const
export const Run = Schema.Struct(contractFields(RunRow.fields, RUN_FIELDS))
export type Run = typeof Run.Type

export const DetailedRun = Schema.Struct({
  ...Run.fields,
  input_params: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  token_usage: Schema.Record({ key: Schema.String, value: ModelUsage }),
  output: Schema.Unknown,
  named_outputs: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** The step row's columns the contract shows (a null one absent); its `id` is the contract's `step_id`. */
export const STEP_FIELDS = [
  "node_id",
  "node_type",
  "node_name",
  "status",
  "attempt",
  "output",
  "error",
  "error_kind",
  "error_code",
  "token_usage",
  "started_at",
  "finished_at"
] as const
export const Step = Schema.Struct({
  step_id: StepRow.fields.id,
  ...contractFields(StepRow.fields, STEP_FIELDS),
  /** For a failed step: whether running it again can help (its error_kind is dependency or model). */
  retryable: Schema.optional(Schema.Boolean)
})
export type Step = typeof Step.Type

export const StartRunRequest = Schema.Struct({
  input_params: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }),
  session_id: Schema.optional(Schema.UUID)
})

/** A dry run: the latest saved version (a draft included), or the one `version` names. */
export const DryRunRequest = Schema.Struct({
  ...StartRunRequest.fields,
  version: Schema.optional(Schema.Int.pipe(Schema.positive()))
})

export const CancelResult = Schema.Struct({
  id: Schema.UUID,
  status: RunStatus,
  hitl_cancelled_count: Schema.Int
})

export const RunFilters = Schema.Struct({
  page: Schema.optionalWith(IntFromString(1), { default: () => 1 }),
  page_size: pageSizeParam(20),
  trigger_type: Schema.optional(TriggerType),
  status: Schema.optional(RunStatus),
  /** RFC 3339, an inclusive lower bound on created_at. */
  since: Schema.optional(DateTimeParam)
})

export const RunPage = Page(Run)

/** The run history across AI Employees: filters, newest first, an opaque cursor per page (keyset: fast at any depth). */
export const RunHistoryParams = Schema.Struct({
  status: Schema.optional(RunStatus),
  trigger_type: Schema.optional(TriggerType),
  workflow_id: Schema.optional(WorkflowId),
  parent_run_id: Schema.optional(Schema.UUID),
  /** RFC 3339, inclusive lower bound on created_at. */
  since: Schema.optional(DateTimeParam),
  /** RFC 3339, exclusive upper bound on created_at. */
  until: Schema.optional(DateTimeParam),
  /** By created_at: `newest` first (the default) or `oldest` first. A cursor holds to the order it was issued for. */
  order: Schema.optionalWith(Schema.Literal("newest", "oldest"), { default: () => "newest" as const }),
  cursor: Schema.optional(Schema.String),
  page_size: pageSizeParam(50)
})

export const RunHistory = Schema.Struct({
  items: Schema.Array(Run),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "RunHistory" })

/** A recent-runs entry: a run, or a chat session's runs folded into its latest. */
export const RecentRun = Schema.Struct({ ...Run.fields, run_count: Schema.Int })
export const RecentRuns = Schema.Struct({
  items: Schema.Array(RecentRun),
  total: Schema.Int,
  limit: Schema.Int,
  offset: Schema.Int,
  has_more: Schema.Boolean
})

/** The HITL row's columns the contract shows (a null one absent); its `id` is the contract's `request_id`. */
export const HITL_FIELDS = [
  "run_id",
  "workflow_id",
  "node_id",
  "type",
  "prompt",
  "choices",
  "form_schema",
  "assignee",
  "status",
  "claimed_by",
  "response",
  "responded_by",
  "created_at",
  "responded_at"
] as const
export const HitlRequest = Schema.Struct({ request_id: HitlRow.fields.id, ...contractFields(HitlRow.fields, HITL_FIELDS) })
export type HitlRequest = typeof HitlRequest.Type

export const HitlPage = Page(HitlRequest)

/** Checked by the service, so that a malformed response is a clear 400 rather than a decode error. */
export const HitlRespondRequest = Schema.Struct({ response: Schema.Unknown })
