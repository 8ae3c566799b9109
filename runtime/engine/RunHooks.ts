import { Context, Effect, Layer } from "effect"
import type { ChatReply } from "./ChatReply.js"

/** How a run ended, as the services that follow runs (chat) see it. */
export interface RunEnding {
  readonly runId: string
  readonly status: "completed" | "failed" | "cancelled"
  /** What a chat AI Employee answered; computed for every completed run. */
  readonly reply?: ChatReply | undefined
  readonly error?: string | null | undefined
}

/**
 * Called once a run reaches a terminal status, before its final event is published, from the
 * activity that ends it: an implementation must be idempotent (the activity may run again after
 * a crash) and must not fail (a run's end never depends on who follows it).
 */
export class RunEndHooks extends Context.Tag("RunEndHooks")<RunEndHooks, {
  readonly ended: (ending: RunEnding) => Effect.Effect<void>
}>() {
  static readonly none = Layer.succeed(RunEndHooks, { ended: () => Effect.void })
}
