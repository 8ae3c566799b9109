import { Effect, Option } from "effect"
import { traced } from "../../../platform/Traced.js"
import { RunnableWorkflows } from "../../../runtime/run/Ports.js"
import { requireBuilder, requireReader } from "../../../schemas/Authorization.js"
import { conflict, notFound } from "../../../schemas/Errors.js"
import type { WorkflowId } from "../../../schemas/Ids.js"
import type { Principal } from "../../../schemas/Principal.js"
import type { ScheduleRequest } from "../../../schemas/Schedule.js"
import { WorkflowsRepo } from "../WorkflowsRepo.js"
import { checkSpec, ScheduleStore, toSchedule } from "./ScheduleStore.js"

/** The schedule endpoints: builders write an AI Employee's schedule; readers see it. */
export class Schedules extends Effect.Service<Schedules>()("Schedules", {
  dependencies: [ScheduleStore.Default, WorkflowsRepo.Default],
  effect: Effect.gen(function*() {
    const store = yield* ScheduleStore
    const workflows = yield* WorkflowsRepo
    const runnable = yield* RunnableWorkflows

    const writable = (principal: Principal, id: WorkflowId) => Effect.zipRight(requireBuilder(principal), workflows.visible(principal, id))

    const found = <A>(row: Option.Option<A>) => Option.match(row, { onNone: () => Effect.fail(notFound("Schedule")), onSome: Effect.succeed })

    const put = (principal: Principal, id: WorkflowId, body: typeof ScheduleRequest.Type) =>
      writable(principal, id).pipe(
        Effect.zipRight(store.put(principal.tenantId, id, body, { managed: false, createdBy: principal.userId, enable: false })),
        Effect.map(toSchedule)
      )

    const get = (principal: Principal, id: WorkflowId) =>
      Effect.zipRight(requireReader(principal), workflows.visible(principal, id)).pipe(
        Effect.zipRight(store.get(principal.tenantId, id)),
        Effect.flatMap(found),
        Effect.map(toSchedule)
      )

    const enable = (principal: Principal, id: WorkflowId) =>
      Effect.gen(function*() {
        yield* writable(principal, id)
        const schedule = yield* found(yield* store.get(principal.tenantId, id))
        if ((yield* runnable.active(principal.tenantId, id)) === undefined) {
          return yield* conflict("NOT_PUBLISHED", "A schedule fires the published version: publish the AI Employee first")
        }
        return toSchedule(schedule.enabled ? schedule : yield* found(yield* store.setEnabled(principal.tenantId, id, true)))
      })

    const disable = (principal: Principal, id: WorkflowId) =>
      writable(principal, id).pipe(
        Effect.zipRight(store.setEnabled(principal.tenantId, id, false)),
        Effect.flatMap(found),
        Effect.map(toSchedule)
      )

    const remove = (principal: Principal, id: WorkflowId) =>
      writable(principal, id).pipe(
        Effect.zipRight(store.remove(principal.tenantId, id)),
        Effect.flatMap((removed) => removed ? Effect.void : Effect.fail(notFound("Schedule")))
      )

    /** The next fire times of a cron expression, parsed as a saved one is (nothing is written). */
    const preview = (principal: Principal, request: { readonly cron: string; readonly timezone: string; readonly count: number }) =>
      Effect.zipRight(requireReader(principal), checkSpec(request)).pipe(
        Effect.map((schedule) => {
          const next: Array<Date> = []
          for (let at = new Date(); next.length < request.count;) {
            const fire = schedule.nextAfter(at)
            if (fire === undefined) break
            next.push(fire)
            at = fire
          }
          return { cron: request.cron, timezone: request.timezone, next_fire_times: next }
        })
      )

    return traced("Schedules", { put, get, enable, disable, remove, preview })
  })
}) {}
