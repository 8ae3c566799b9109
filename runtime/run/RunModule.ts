import { Sharding } from "@effect/cluster"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { runRootSpan } from "../../otel/RunTraceIds.js"
import { PreparedSql } from "../../platform/PreparedSql.js"
import { decodeRows, JsonObject } from "../../platform/Rows.js"
import { derivedUuidOf, uuidV7 } from "../../platform/TimedId.js"
import type { NodeEnvelope } from "../../schemas/Dag.js"
import { type BadRequest, badRequest, type Conflict, conflict } from "../../schemas/Errors.js"
import { WorkflowId } from "../../schemas/Ids.js"
import type { TriggerType } from "../../schemas/Run.js"
import { finalEventOf, RunStatus } from "../../schemas/RunLifecycle.js"
import { checkJsonSchema } from "../dag/JsonSchema.js"
import { encodeRecord } from "./JournalRecord.js"
import { RunPlacement } from "./Placement.js"
import { RunnableWorkflows } from "./Ports.js"
import { type CancelResult, RunEntity } from "./RunEntity.js"
import { type InsertedRun, makeRunInserts } from "./RunInserts.js"
import type { RunRecord } from "./RunRecord.js"
import { Versions } from "./Versions.js"

const Usage = Schema.Struct({ prompt_tokens: Schema.Number, completion_tokens: Schema.Number, total_tokens: Schema.Number })
const completedStepRows = decodeRows(
  "run_steps",
  Schema.Struct({ node_id: Schema.String, output: Schema.Unknown, token_usage: Schema.NullOr(Schema.Record({ key: Schema.String, value: Usage })) })
)

/** A run to create. The caller has checked that its principal may run this AI Employee. */
export interface RunRequest {
  readonly tenantId: string
  readonly workflowId: string
  /** The version to pin; by default the AI Employee's active version. */
  readonly version?: { readonly number: number; readonly name: string } | undefined
  /**
   * `version` came from a copy of the AI Employee's row kept in memory: the run is written only
   * if the row still has that name, is not archived and (`active`) has that active version or
   * (`latest`) that latest version; else the create fails with 409 WORKFLOW_CHANGED, nothing written.
   */
  readonly asRead?: { readonly active: boolean; readonly latest?: number | undefined } | undefined
  readonly triggerType: TriggerType
  readonly createdBy?: string | null | undefined
  readonly apiKeyId?: string | null | undefined
  readonly isDryRun: boolean
  readonly input: Record<string, unknown>
  /** What is checked against the version's input schema (default: `input`). */
  readonly checkedInput?: Record<string, unknown> | undefined
  readonly sessionId?: string | null | undefined
  /** Accepted but started later by whoever holds it (a queued chat turn): see `release`. */
  readonly held?: boolean | undefined
  readonly id?: string | undefined
  readonly parent?: { readonly runId: string; readonly nodeId: string } | undefined
  /** The fire time a schedule started it for (at most one run per AI Employee and fire time). */
  readonly scheduledFireTime?: Date | undefined
  /** Recorded, not run: the run is created `skipped` with this reason (a schedule's overlap policy). */
  readonly skipReason?: string | undefined
  /** Knowledge-search settings for this run only (`top_k`, `min_score` of its search steps). */
  readonly searchOverrides?: {
    readonly top_k?: number | undefined
    readonly min_score?: number | undefined
    /** Knowledge bases the run's agent steps search besides their own. */
    readonly knowledge_base_ids?: ReadonlyArray<string> | undefined
  } | undefined
}

/** The run as created (or found again: a child run created again by its node's re-run is not `pending`). */
export type CreatedRun = Omit<InsertedRun, "input_params"> & {
  /**
   * The whole record of a run inserted by this call (never of one found again): handed to
   * `launch`, it spares the run's first activation a read.
   */
  readonly fresh?: RunRecord | undefined
}

/**
 * For a `create` inside an effect that may instead replay an earlier answer (an Idempotency-Key):
 * `keep` remembers the run this request created; `launch` hands the answer's run to the kernel,
 * with its fresh record when it is the one created here. A replayed answer's run is handed over
 * only while it is still pending (the first request died before it did): a run that went on needs
 * nothing, and handing it over would cost an activation and a read of its journal per replay.
 */
export const createdHere = () => {
  const box: { run?: CreatedRun } = {}
  return {
    keep: <E, R>(self: Effect.Effect<CreatedRun, E, R>) => Effect.tap(self, (run) => Effect.sync(() => (box.run = run))),
    launch: (modules: RunModule["Type"], runId: string) =>
      box.run !== undefined && box.run.id === runId
        ? modules.launchCreated(box.run)
        : Effect.flatMap(modules.statuses([runId]), (statuses) => statuses.get(runId) === "pending" ? modules.launch(runId) : Effect.void)
  }
}

/** Every run starts here (a prepared statement; inside a transaction it runs on the transaction's connection). */
/** The id a call_aie node's child run gets: derived, so the node run again finds the same child. */
// A child shares its parent's time, and so its parent's partition of the run tables.
export const childRunId = (runId: string, nodeId: string) => derivedUuidOf(runId, `${runId}/${nodeId}`)

/**
 * The one owner of runs: every run is created, started, released, woken and cancelled here
 * (the HTTP run endpoint, chat, feedback, call_aie and every later trigger), and the kernel it
 * hands runs to (`Activations`) is the only writer of their journal.
 */
export interface RunOutcome {
  readonly status: RunStatus
  readonly error: string | null
  readonly namedOutputs: Record<string, unknown>
  readonly completedSteps: ReadonlyArray<{ readonly node_id: string; readonly output: unknown }>
  readonly nodes: ReadonlyArray<NodeEnvelope>
  /** Tokens per model over the run's steps. */
  readonly usage: Readonly<Record<string, { readonly prompt_tokens: number; readonly completion_tokens: number; readonly total_tokens: number }>>
}

export class RunModule extends Context.Tag("RunModule")<RunModule, {
  /** Pins the version, checks the input against its schema and inserts the run (in the caller's transaction, when there is one). */
  readonly create: (request: RunRequest) => Effect.Effect<CreatedRun, Conflict | BadRequest>
  /** Hands a created run to the kernel; call it once the creating transaction committed. */
  readonly launch: (runId: string) => Effect.Effect<void>
  /** `launch` for the run a `create` of this process returned (its `fresh` record goes along). */
  readonly launchCreated: (run: CreatedRun) => Effect.Effect<void>
  /** `create`, then `launch`. */
  readonly start: (request: RunRequest) => Effect.Effect<CreatedRun, Conflict | BadRequest>
  /** Lets a held run go with its final input (in the caller's transaction); `launch` it after the commit. */
  readonly release: (runId: string, input: Record<string, unknown> | undefined) => Effect.Effect<void>
  /** Wakes a run after one of its waits was resolved (the resolution must be committed). */
  readonly wake: (runId: string) => Effect.Effect<void>
  /** Records that a run has something to resume (in the resolver's transaction); `wake` it after the commit. */
  readonly requestWake: (runId: string) => Effect.Effect<void>
  /** Resolves an `external` or `timer` wait of a node (in the caller's transaction); then `wake`. */
  readonly resolveWait: (runId: string, nodeId: string, resolution: unknown) => Effect.Effect<boolean>
  /** Stops the run wherever it runs and records the cancellation; its child runs are cancelled too. */
  readonly cancel: (runId: string) => Effect.Effect<CancelResult>
  /** The status of each of these runs that exists. */
  readonly statuses: (runIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, RunStatus>>
  /** What an ended run left: its status, error, named outputs, completed steps in order, and its version's nodes. */
  readonly outcome: (runId: string) => Effect.Effect<Option.Option<RunOutcome>>
}>() {
  static readonly layer = Layer.scoped(
    RunModule,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const prepared = yield* PreparedSql
      const insertRun = yield* makeRunInserts(prepared)
      const workflows = yield* RunnableWorkflows
      const versions = yield* Versions
      const sharding = yield* Sharding.Sharding
      const placement = yield* RunPlacement
      const client = yield* RunEntity.client.pipe(Effect.provideService(Sharding.Sharding, sharding))

      // A run start without a pinned version takes the active version from this node's copy and
      // writes its run only if the row still says so (`check_head`): a copy gone stale (or saying
      // "not published") is forgotten and read again once, never a run of the wrong version.
      const activeHead = (r: RunRequest, fromCopy: boolean) =>
        (fromCopy ? workflows.activeKept : workflows.active)(r.tenantId, r.workflowId).pipe(
          Effect.flatMap((a) =>
            a !== undefined
              ? Effect.succeed({ number: a.version, name: a.name })
              : fromCopy
              ? Effect.succeed(undefined)
              : Effect.fail(conflict("NOT_PUBLISHED", "This AI Employee has no published version to run"))
          )
        )

      const create = (r: RunRequest) => createOnce(r, true)

      const createOnce = (r: RunRequest, headFromMemory: boolean): Effect.Effect<CreatedRun, Conflict | BadRequest> =>
        Effect.gen(function*() {
          yield* placement.check
          const remembered = r.version === undefined && headFromMemory
          const pinned = r.version ?? (yield* activeHead(r, remembered))
          if (pinned === undefined) {
            yield* workflows.forgetActive(r.tenantId, r.workflowId)
            return yield* createOnce(r, false)
          }
          const version = yield* versions.get(r.workflowId, pinned.number)
          if (version === undefined) return yield* conflict("NOT_PUBLISHED", "The AI Employee's version to run is gone")
          if (version.inputSchema !== undefined && version.inputSchema !== null) {
            const problems = checkJsonSchema(version.inputSchema, r.checkedInput ?? r.input)
            if (problems.length > 0) {
              return yield* badRequest(
                "INVALID_INPUT",
                `input_params do not match the input schema: ${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}`,
                problems
              )
            }
          }
          const status = r.skipReason !== undefined ? "skipped" : "pending"
          const record: RunRecord = {
            id: r.id ?? uuidV7(),
            tenant_id: r.tenantId,
            // The version lookup above found it, so it is a workflow's id.
            workflow_id: WorkflowId.make(r.workflowId),
            workflow_name: pinned.name,
            version: pinned.number,
            status,
            trigger_type: r.triggerType,
            is_dry_run: r.isDryRun,
            input_params: r.input,
            parent_run_id: r.parent?.runId ?? null,
            parent_node_id: r.parent?.nodeId ?? null,
            session_id: r.sessionId ?? null,
            held: r.held ?? false,
            error: null,
            created_by: r.createdBy ?? null,
            search_overrides: r.searchOverrides ?? null
          }
          const inserted = yield* insertRun({
            ...record,
            input_params: r.input,
            skip_reason: r.skipReason ?? null,
            finished_at: r.skipReason !== undefined ? new Date() : null,
            scheduled_fire_time: r.scheduledFireTime ?? null,
            api_key_id: r.apiKeyId ?? null,
            check_head: r.asRead === undefined ? (remembered ? "active" : null) : r.asRead.active ? "active" : "exists",
            head_latest: r.asRead?.latest ?? null
          })
          if (inserted === undefined && remembered) {
            yield* workflows.forgetActive(r.tenantId, r.workflowId)
            return yield* createOnce(r, false)
          }
          if (inserted === undefined) {
            return yield* conflict("WORKFLOW_CHANGED", "The AI Employee changed while the run started: send it again")
          }
          // A run recorded as skipped never runs: its one event ends its stream (seq 1, written once).
          if (status === "skipped") {
            const skipped = { type: finalEventOf("skipped"), payload: { status, skip_reason: r.skipReason }, key: finalEventOf("skipped"), spanId: undefined }
            yield* sql`INSERT INTO run_events (run_id, seq, body, keyed) VALUES (${record.id}, 1, ${encodeRecord(record.id, [skipped], [])}, true)
              ON CONFLICT DO NOTHING`.pipe(Effect.orDie)
          }
          // The request (or whatever traced span creates the run) points at the run's trace.
          yield* Effect.linkSpanCurrent(runRootSpan(record.id), { "bp.link": "started_run" })
          // A given id may name a run that already existed (ON CONFLICT): only a new id is surely this insert's.
          const { input_params, ...row } = inserted
          const created: CreatedRun = row
          if (r.id !== undefined || status !== "pending" || record.held) return created
          // The input as stored (jsonb orders keys its own way), so that every activation sees the same object.
          return { ...created, fresh: { ...record, input_params } }
        }).pipe(Effect.withSpan("RunModule.create", { captureStackTrace: false }))

      // A message to a run on another runner is answered when its activation ends: nobody waits for that.
      const launch = (runId: string, fresh?: RunRecord | undefined) =>
        client(runId).Run(fresh === undefined ? { runId } : { runId, fresh }, { discard: true }).pipe(
          Effect.catchAllCause((cause) => Effect.logWarning(`Run ${runId} could not be handed over now; the recovery sweep will`, cause)),
          Effect.forkDaemon,
          Effect.asVoid
        )

      const requestWake = (runId: string) =>
        sql`UPDATE runs SET wake_seq = wake_seq + 1, updated_at = now() WHERE id = ${runId}`.pipe(Effect.asVoid, Effect.orDie)

      return {
        create,
        launch: (runId) => launch(runId),
        launchCreated: (run) => launch(run.id, run.fresh),
        start: (r) => Effect.tap(create(r), (run) => run.held || run.status === "skipped" ? Effect.void : launch(run.id, run.fresh)),
        release: (runId, input) =>
          sql`UPDATE runs SET held = false, updated_at = now()
            ${input !== undefined ? sql`, input_params = ${JSON.stringify(input)}::jsonb` : sql``}
            WHERE id = ${runId}`.pipe(Effect.asVoid, Effect.orDie),
        wake: (runId) => launch(runId),
        requestWake,
        resolveWait: (runId, nodeId, resolution) =>
          Effect.gen(function*() {
            const rows = yield* sql`UPDATE run_waits SET resolution = ${JSON.stringify(resolution ?? null)}::jsonb, resolved_at = now()
              WHERE run_id = ${runId} AND node_id = ${nodeId} AND resolved_at IS NULL RETURNING node_id`
            if (rows.length > 0) yield* requestWake(runId)
            return rows.length > 0
          }).pipe(Effect.orDie),
        cancel: (runId) =>
          client(runId).Cancel({ runId }).pipe(
            Effect.orDie,
            Effect.withSpan("RunModule.cancel", { attributes: { "run.id": runId } })
          ),
        statuses: (runIds) =>
          runIds.length === 0
            ? Effect.succeed(new Map())
            : sql`SELECT id, status FROM runs WHERE id IN ${sql.in([...runIds])}`.pipe(
              decodeRows("runs", Schema.Struct({ id: Schema.String, status: RunStatus }))
            ).pipe(
              Effect.map((rows) => new Map(rows.map((r) => [r.id, r.status]))),
              Effect.orDie
            ),
        outcome: (runId) =>
          Effect.gen(function*() {
            const [run] = yield* sql`
              SELECT workflow_id, version, status, error, named_outputs FROM runs WHERE id = ${runId}`.pipe(
              decodeRows(
                "runs",
                Schema.Struct({
                  workflow_id: Schema.String,
                  version: Schema.Number,
                  status: RunStatus,
                  error: Schema.NullOr(Schema.String),
                  named_outputs: Schema.NullOr(JsonObject)
                })
              )
            )
            if (run === undefined) return Option.none()
            const steps = yield* sql`
              SELECT node_id, output, token_usage FROM run_steps
              WHERE run_id = ${runId} AND status = 'completed' ORDER BY finished_at, position`.pipe(completedStepRows)
            const usage: Record<string, { prompt_tokens: number; completion_tokens: number; total_tokens: number }> = {}
            for (const step of steps) {
              for (const [model, u] of Object.entries(step.token_usage ?? {})) {
                const t = usage[model] ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }
                usage[model] = {
                  prompt_tokens: t.prompt_tokens + u.prompt_tokens,
                  completion_tokens: t.completion_tokens + u.completion_tokens,
                  total_tokens: t.total_tokens + u.total_tokens
                }
              }
            }
            const version = yield* versions.get(run.workflow_id, run.version)
            return Option.some({
              status: run.status,
              error: run.error,
              namedOutputs: run.named_outputs ?? {},
              completedSteps: steps.map((s) => ({ node_id: s.node_id, output: s.output })),
              nodes: version?.nodes ?? [],
              usage
            })
          }).pipe(Effect.orDie)
      }
    })
  )
}
