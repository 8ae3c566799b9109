import { SqlClient } from "@effect/sql"
import { Duration, Effect, Either, Layer, Queue, Schema } from "effect"
import { keepRunning } from "../../../platform/Background.js"
import { type CronSchedule, parseCron } from "../../../platform/Cron.js"
import { makeIdlePause } from "../../../platform/IdlePause.js"
import { decodeRows, Timestamp } from "../../../platform/Rows.js"
import { derivedUuidV7 } from "../../../platform/TimedId.js"
import { RunModule } from "../../../runtime/run/RunModule.js"
import { type ScheduleRow, scheduleRows, ScheduleStore } from "./ScheduleStore.js"

/** A fire later than this was missed while the platform was down: of those, only the latest runs. */
export const CATCH_UP_MS = 5_000
const BATCH = 50
const MAX_FIRES_PER_CLAIM = 100

/** The run a fire starts: fixed by the AI Employee and the fire time, so a fire claimed twice finds it. */
const fireRunId = (workflowId: string, at: Date) => derivedUuidV7(at.getTime(), `schedule:${workflowId}:${at.toISOString()}`)

/**
 * The fire times a claim at `now` starts, from the schedule's `next_fire_at`: every fire of the
 * last CATCH_UP_MS (a busy process is late, not down); fires missed before that are dropped
 * except the most recent one, which runs once.
 */
export const fireTimesDue = (cron: CronSchedule, nextFireAt: Date, now: Date): ReadonlyArray<Date> => {
  const windowStart = new Date(Math.max(nextFireAt.getTime(), now.getTime() - CATCH_UP_MS))
  const times: Array<Date> = []
  let t: Date | undefined = windowStart.getTime() === nextFireAt.getTime() ? nextFireAt : cron.nextAfter(new Date(windowStart.getTime() - 1))
  while (t !== undefined && t.getTime() <= now.getTime() && times.length < MAX_FIRES_PER_CLAIM) {
    times.push(t)
    t = cron.nextAfter(t)
  }
  if (times.length > 0) return times
  const latest = cron.latestAtOrBefore(now)
  return latest !== undefined && latest.getTime() >= nextFireAt.getTime() ? [latest] : []
}

/**
 * Fires due schedules. Every process runs this loop; a due schedule is claimed with
 * `FOR UPDATE SKIP LOCKED` and its runs are created in the transaction that moves its
 * `next_fire_at`, so each fire time starts one run however many processes there are (the run id
 * derives from the fire time, and runs hold one row per AI Employee and fire time). The runs
 * are handed to the kernel after the commit; one whose hand-over dies with the process is
 * picked up by the kernel's recovery sweep.
 */
export const ScheduleFiringLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const modules = yield* RunModule
    const store = yield* ScheduleStore

    const overlapping = (workflowId: string) =>
      sql`SELECT scheduled_fire_time FROM runs WHERE workflow_id = ${workflowId}
        AND scheduled_fire_time IS NOT NULL AND status IN ('pending', 'running', 'paused') LIMIT 1`.pipe(
        decodeRows("runs", Schema.Struct({ scheduled_fire_time: Timestamp }))
      ).pipe(
        Effect.map((rows) => rows[0]?.scheduled_fire_time)
      )

    const fire = (schedule: ScheduleRow, cron: CronSchedule, now: Date) =>
      Effect.gen(function*() {
        const times = fireTimesDue(cron, schedule.next_fire_at ?? now, now)
        const started: Array<string> = []
        let error: string | null = null
        for (const at of times) {
          const previous = schedule.overlap_policy === "skip" ? yield* overlapping(schedule.workflow_id) : undefined
          const created = yield* modules.create({
            id: fireRunId(schedule.workflow_id, at),
            tenantId: schedule.tenant_id,
            workflowId: schedule.workflow_id,
            triggerType: "schedule",
            createdBy: null,
            apiKeyId: null,
            isDryRun: false,
            input: schedule.input_params,
            scheduledFireTime: at,
            skipReason: previous !== undefined
              ? `overlap_policy skip: the run of the fire at ${previous.toISOString()} has not ended`
              : undefined
          }).pipe(Effect.either)
          if (Either.isLeft(created)) error = created.left.message
          else if (created.right.status === "pending") started.push(created.right.id)
        }
        const next = cron.nextAfter(now) ?? null
        yield* sql`UPDATE schedules SET next_fire_at = ${next}, enabled = ${next !== null},
          last_fire_at = COALESCE(${times.at(-1) ?? null}::timestamptz, last_fire_at), last_error = ${error}, updated_at = now()
          WHERE workflow_id = ${schedule.workflow_id}`
        return started
      })

    const claim = sql.withTransaction(Effect.gen(function*() {
      const now = new Date()
      const due = yield* sql`SELECT * FROM schedules WHERE enabled AND next_fire_at <= ${now}
        ORDER BY next_fire_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`.pipe(scheduleRows)
      const started: Array<string> = []
      for (const schedule of due) {
        const cron = parseCron(schedule.cron, schedule.timezone)
        if (Either.isLeft(cron)) {
          yield* sql`UPDATE schedules SET enabled = false, next_fire_at = NULL, last_error = ${cron.left.message}
            WHERE workflow_id = ${schedule.workflow_id}`
          continue
        }
        started.push(...(yield* fire(schedule, cron.right, now)))
      }
      return { claimed: due.length, started }
    })).pipe(Effect.withSpan("ScheduleFiring.claim"))

    // Schedules made on another process are found by this poll; the next fire time of those known caps the pause.
    const pause = makeIdlePause("500 millis", "2 seconds")
    const idle = Effect.gen(function*() {
      const [row] = yield* sql`SELECT min(next_fire_at) AS at FROM schedules WHERE enabled`.pipe(
        decodeRows("schedules", Schema.Struct({ at: Schema.NullOr(Timestamp) }))
      )
      const untilNext = row?.at == null ? undefined : Duration.millis(Math.max(10, row.at.getTime() - Date.now()))
      yield* pause.idle(Queue.take(store.changes), untilNext)
    })

    const round = Effect.gen(function*() {
      const { claimed, started } = yield* claim
      yield* Effect.forEach(started, modules.launch, { discard: true })
      if (claimed > 0) yield* pause.worked
      if (claimed < BATCH) yield* idle
    })

    yield* keepRunning("Firing schedules", round)
  })
)
