import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer, Option, Queue, Schema } from "effect"
import { parseCron } from "../../../platform/Cron.js"
import { decodeRows, JsonObject, Timestamp } from "../../../platform/Rows.js"
import { traced } from "../../../platform/Traced.js"
import { ManagedSchedules } from "../../../runtime/nodes/ManagedSchedules.js"
import { badRequest } from "../../../schemas/Errors.js"
import { WorkflowId } from "../../../schemas/Ids.js"
import { OverlapPolicy, type Schedule } from "../../../schemas/Schedule.js"

export const ScheduleRow = Schema.Struct({
  workflow_id: WorkflowId,
  tenant_id: Schema.String,
  cron: Schema.String,
  timezone: Schema.String,
  input_params: JsonObject,
  overlap_policy: OverlapPolicy,
  enabled: Schema.Boolean,
  managed: Schema.Boolean,
  next_fire_at: Schema.NullOr(Timestamp),
  last_fire_at: Schema.NullOr(Timestamp),
  last_error: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type ScheduleRow = typeof ScheduleRow.Type
export const scheduleRows = decodeRows("schedules", ScheduleRow)

export const toSchedule = ({ tenant_id: _, ...row }: ScheduleRow): Schedule => row

export interface ScheduleSpec {
  readonly cron: string
  readonly timezone: string
  readonly input_params: Record<string, unknown>
  readonly overlap_policy: "skip" | "allow"
}

/** The cron and time zone parsed, or 400 INVALID_SCHEDULE naming the field. */
export const checkSpec = (spec: { readonly cron: string; readonly timezone: string }) =>
  Either.match(parseCron(spec.cron, spec.timezone), {
    onLeft: (problem) => Effect.fail(badRequest("INVALID_SCHEDULE", problem.message, [{ field: problem.field, message: problem.message }])),
    onRight: Effect.succeed
  })

/**
 * The schedules table: one schedule per AI Employee. Every write that may bring a fire closer
 * signals `changes`, so this process's fire loop looks again at once (the others poll).
 */
export class ScheduleStore extends Effect.Service<ScheduleStore>()("ScheduleStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const changes = yield* Queue.sliding<void>(1)
    const changed = Queue.offer(changes, undefined)

    const get = (tenantId: string, workflowId: string) =>
      sql`SELECT * FROM schedules WHERE tenant_id = ${tenantId} AND workflow_id = ${workflowId}`.pipe(
        scheduleRows,
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    /** Creates the schedule disabled, or replaces its spec; an enabled one stays enabled from the next fire of the new spec. */
    const put = (tenantId: string, workflowId: string, spec: ScheduleSpec, by: { managed: boolean; createdBy: string | null; enable: boolean }) =>
      Effect.gen(function*() {
        const cron = yield* checkSpec(spec)
        const next = cron.nextAfter(new Date()) ?? null
        const [row] = yield* sql`INSERT INTO schedules ${
          sql.insert({
            workflow_id: workflowId,
            tenant_id: tenantId,
            cron: spec.cron.trim(),
            timezone: spec.timezone,
            input_params: JSON.stringify(spec.input_params),
            overlap_policy: spec.overlap_policy,
            enabled: by.enable,
            managed: by.managed,
            next_fire_at: by.enable ? next : null,
            created_by: by.createdBy
          })
        } ON CONFLICT (workflow_id) DO UPDATE SET cron = EXCLUDED.cron, timezone = EXCLUDED.timezone,
          input_params = EXCLUDED.input_params, overlap_policy = EXCLUDED.overlap_policy, managed = EXCLUDED.managed,
          enabled = schedules.enabled OR EXCLUDED.enabled,
          next_fire_at = CASE WHEN schedules.enabled OR EXCLUDED.enabled THEN ${next}::timestamptz ELSE NULL END,
          last_error = NULL, updated_at = now()
        RETURNING *`.pipe(scheduleRows, Effect.orDie)
        yield* changed
        return row
      })

    /** Enables (from the next fire after now) or disables; none when there is no schedule. */
    const setEnabled = (tenantId: string, workflowId: string, enabled: boolean) =>
      Effect.gen(function*() {
        const current = yield* get(tenantId, workflowId)
        if (Option.isNone(current)) return Option.none<ScheduleRow>()
        if (current.value.enabled === enabled) return current
        const next = enabled
          ? Either.getOrUndefined(parseCron(current.value.cron, current.value.timezone))?.nextAfter(new Date()) ?? null
          : null
        const rows = yield* sql`UPDATE schedules SET enabled = ${enabled}, next_fire_at = ${next}, last_error = NULL, updated_at = now()
          WHERE tenant_id = ${tenantId} AND workflow_id = ${workflowId} RETURNING *`.pipe(scheduleRows, Effect.orDie)
        yield* changed
        return Option.fromNullable(rows[0])
      })

    const remove = (tenantId: string, workflowId: string) =>
      sql`DELETE FROM schedules WHERE tenant_id = ${tenantId} AND workflow_id = ${workflowId} RETURNING workflow_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    return traced("ScheduleStore", { get, put, setEnabled, remove, changes })
  })
}) {}

/** The schedule node's port: a managed schedule is the AI Employee's schedule, written by its run. */
export const ManagedSchedulesLive = Layer.effect(
  ManagedSchedules,
  Effect.map(ScheduleStore, (store) => ({
    start: (tenantId, workflowId, spec) =>
      store.put(tenantId, workflowId, { cron: spec.cron, timezone: spec.timezone, input_params: spec.inputParams, overlap_policy: "skip" }, {
        managed: true,
        createdBy: null,
        enable: true
      }).pipe(
        Effect.flatMap((row) =>
          row.next_fire_at === null ? Effect.fail({ message: "the cron never fires again" }) : Effect.succeed({ nextFireAt: row.next_fire_at })
        ),
        Effect.mapError((e) => ({ message: e.message }))
      ),
    stop: (tenantId, workflowId) => store.remove(tenantId, workflowId)
  }))
)
