import { Entity } from "@effect/cluster"
import { Rpc } from "@effect/rpc"
import { Schema } from "effect"
import { RunRecord } from "./RunRecord.js"

/** What cancelling a run came to. */
export const CancelResult = Schema.Union(
  Schema.Struct({ outcome: Schema.Literal("cancelled"), hitl_cancelled: Schema.Number }),
  Schema.Struct({ outcome: Schema.Literal("terminal"), status: Schema.String }),
  Schema.Struct({ outcome: Schema.Literal("missing") })
)
export type CancelResult = typeof CancelResult.Type

const RunPayload = Schema.Struct({ runId: Schema.String, fresh: Schema.optional(RunRecord) })

/**
 * A run is a cluster entity sharded by its id: whichever process owns the shard runs it, and a
 * message reaches it wherever it lives. Messages are not stored: the run row is the durable
 * record of a run, and the recovery sweep sends `Run` again for runs nobody carries on.
 *
 * `Run`: start or wake the run (a no-op wake-up while it is active); `fresh` is the record of a
 * run created just now, so that its first activation need not read what it knows is empty.
 * `Cancel`: stop it where it runs and record the cancellation.
 */
export const RunEntity = Entity.make("Run", [
  // Not the struct itself: the client checks a struct payload against its schema on every send
  // (`Struct.make`), a tenth of a millisecond a start for a record this process has just built.
  // Sent to another runner it is still encoded and decoded with the struct.
  Rpc.make("Run", { payload: Schema.suspend(() => RunPayload) }),
  Rpc.make("Cancel", { payload: { runId: Schema.String }, success: CancelResult })
])
