import { Context, type Effect } from "effect"

export interface ManagedScheduleSpec {
  readonly cron: string
  readonly timezone: string
  readonly inputParams: Record<string, unknown>
}

/**
 * The workflow-managed schedule of a dashboard AI Employee, as the schedule node sees it; the
 * workflow service implements it. `start` answers the next fire time, or why the spec is refused.
 */
export class ManagedSchedules extends Context.Tag("ManagedSchedules")<ManagedSchedules, {
  readonly start: (
    tenantId: string,
    workflowId: string,
    spec: ManagedScheduleSpec
  ) => Effect.Effect<{ readonly nextFireAt: Date }, { readonly message: string }>
  /** Ends the schedule; false when there was none. */
  readonly stop: (tenantId: string, workflowId: string) => Effect.Effect<boolean>
}>() {}
