import { Effect } from "effect"
import type { ScheduleNode as ScheduleNodeSchema } from "../../schemas/Dag.js"
import { isRecord } from "../../schemas/Records.js"
import { renderDeep } from "../dag/Render.js"
import { ManagedSchedules } from "./ManagedSchedules.js"
import { defineNode, done, NodeFailure } from "./NodeType.js"

type ScheduleNode = typeof ScheduleNodeSchema.Type

/**
 * schedule: `start` creates (or replaces) and enables the AI Employee's own schedule with the
 * rendered cron, time zone and input; `stop` ends it. A dry run changes nothing.
 */
export const ScheduleNode = defineNode(
  "schedule",
  Effect.map(ManagedSchedules, (schedules) => ({
    execute: (execution) =>
      Effect.gen(function*() {
        const config = (execution.node as ScheduleNode).schedule_config
        if (config.operation === "stop") {
          if (execution.isDryRun) return done({ output: { operation: "stop", status: "dry_run" }, usage: {} })
          const stopped = yield* schedules.stop(execution.tenantId, execution.workflowId)
          return done({ output: { operation: "stop", stopped }, usage: {} })
        }
        const rendered = renderDeep(config, execution.context) as typeof config
        const spec = {
          cron: String(rendered.cron ?? ""),
          timezone: String(rendered.timezone ?? "UTC"),
          inputParams: isRecord(rendered.input_params) ? rendered.input_params : {}
        }
        const summary = { operation: "start", cron: spec.cron, timezone: spec.timezone }
        if (execution.isDryRun) return done({ output: { ...summary, status: "dry_run" }, usage: {} })
        const started = yield* schedules.start(execution.tenantId, execution.workflowId, spec).pipe(
          Effect.mapError((refused) => new NodeFailure({ kind: "configuration", message: `The schedule was not started: ${refused.message}` }))
        )
        return done({ output: { ...summary, enabled: true, next_fire_at: started.nextFireAt.toISOString() }, usage: {} })
      })
  }))
)
