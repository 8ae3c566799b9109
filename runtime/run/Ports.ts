import { Context, Effect, Layer } from "effect"
import type { SpanWrite } from "./Batch.js"

/**
 * What the run kernel needs of the AI Employees it runs; the workflow service implements it.
 * A published version never changes, so the kernel may keep what `version` returns when it is
 * `fixed`; a draft has no configuration of its own and runs with the AI Employee's current one.
 */
export class RunnableWorkflows extends Context.Tag("RunnableWorkflows")<RunnableWorkflows, {
  /** The AI Employee's name and live version in this tenant, when it is published and not archived. */
  readonly active: (tenantId: string, workflowId: string) => Effect.Effect<{ readonly name: string; readonly version: number } | undefined>
  /**
   * `active` from this node's copy when it read the AI Employee lately (a write on this node
   * forgets it). A copy may be stale: check it where it is used (a run insert's `check_head`).
   */
  readonly activeKept: (tenantId: string, workflowId: string) => Effect.Effect<{ readonly name: string; readonly version: number } | undefined>
  /** Drops this node's copy, when a write found it stale. */
  readonly forgetActive: (tenantId: string, workflowId: string) => Effect.Effect<void>
  /** A version's DAG and the configuration captured with it (a draft: the AI Employee's current one, not `fixed`). */
  readonly version: (
    workflowId: string,
    number: number
  ) => Effect.Effect<{ readonly dag: unknown; readonly config: unknown; readonly fixed: boolean } | undefined>
}>() {}

/**
 * The run's spans as the kernel sees them: those ended so far, handed over for the run's own
 * journal commit, and what follows a run's end (its root span exported when spans go out).
 */
export class RunSpans extends Context.Tag("RunSpans")<RunSpans, {
  readonly take: (runId: string) => ReadonlyArray<SpanWrite>
  readonly ended: (runId: string) => Effect.Effect<void>
}>() {
  /** Nothing traced (a kernel run without the telemetry stack: the in-memory journal's tests). */
  static readonly none = Layer.succeed(RunSpans, { take: () => [], ended: () => Effect.void })
}
