import { Context, type Effect } from "effect"

/**
 * What the run kernel needs of the AI Employees it runs; the workflow service implements it.
 * A published version never changes, so the kernel may keep what `version` returns when it is
 * `fixed`; a draft has no configuration of its own and runs with the AI Employee's current one.
 */
export class RunnableWorkflows extends Context.Tag("RunnableWorkflows")<RunnableWorkflows, {
  /** The AI Employee's name and live version in this tenant, when it is published and not archived. */
  readonly active: (tenantId: string, workflowId: string) => Effect.Effect<{ readonly name: string; readonly version: number } | undefined>
  /** A version's DAG and the configuration captured with it (a draft: the AI Employee's current one, not `fixed`). */
  readonly version: (
    workflowId: string,
    number: number
  ) => Effect.Effect<{ readonly dag: unknown; readonly config: unknown; readonly fixed: boolean } | undefined>
}>() {}
