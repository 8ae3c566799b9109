import { Context, type Fiber, Layer } from "effect"

/** A run active on this process: its activation running, or waiting (or parked) for a slot of its tenant. */
export interface ActiveRun {
  wake: boolean
  fiber: Fiber.RuntimeFiber<void, unknown> | undefined
  /** Waiting for its tenant's slot outside memory: its tenant's line launches it again (Admission). */
  parked?: boolean
}

/**
 * The runs active on this process, by id: kept by the run entity's handlers (a `Run` for one of
 * them is a wake-up), read by the recovery sweep, which leaves them alone: a run waiting in its
 * tenant's line is quiet but not lost, and handing it over again would cost a message and, after
 * it ends, a second activation.
 */
export class ActiveRuns extends Context.Tag("ActiveRuns")<ActiveRuns, Map<string, ActiveRun>>() {
  static readonly layer = Layer.sync(ActiveRuns, () => new Map<string, ActiveRun>())
}
