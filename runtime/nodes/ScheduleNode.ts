import { Effect, Either } from "effect"
import { parseCron } from "../../platform/Cron.js"
import { ScheduleNode as ScheduleNodeSchema } from "../../schemas/Dag.js"
import { isRecord } from "../../schemas/Records.js"
import { error } from "../dag/Findings.js"
import { renderDeep } from "../dag/Render.js"
import { ManagedSchedules } from "./ManagedSchedules.js"
import { defineNode, done } from "./NodeType.js"

/**
 * schedule: `start` creates (or replaces) and enables the AI Employee's own schedule with the
 * rendered cron, time zone and input; `stop` ends it. A dry run changes nothing.
 */
export const ScheduleNode = defineNode({
  type: "schedule",
  schema: ScheduleNodeSchema,
  failures: { SCHEDULE_REFUSED: "configuration" },
  check: (node, { facts }) => {
    const findings = facts.interactionType === "dashboard" ? [] : [error(
      "SCHEDULE_NODE_REQUIRES_DASHBOARD",
      `Schedule node '${node.id}' manages a schedule, which only a dashboard AI Employee has (this one is ${facts.interactionType})`,
      node.id
    )]
    const c = node.schedule_config
    if (c.operation === "start" && !c.cron.includes("{{") && !c.timezone.includes("{{")) {
      const parsed = parseCron(c.cron, c.timezone)
      if (Either.isLeft(parsed)) findings.push(error("SCHEDULE_INVALID", `Schedule node '${node.id}': ${parsed.left.message}`, node.id))
    }
    return findings
  },
  make: (fail) =>
    Effect.map(ManagedSchedules, (schedules) => ({
      execute: (execution, node) =>
        Effect.gen(function*() {
          const config = node.schedule_config
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
            Effect.mapError((refused) => fail("SCHEDULE_REFUSED", `The schedule was not started: ${refused.message}`))
          )
          return done({ output: { ...summary, enabled: true, next_fire_at: started.nextFireAt.toISOString() }, usage: {} })
        })
    }))
})
