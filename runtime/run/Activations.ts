import { Entity, type ShardId, Sharding } from "@effect/cluster"
import { SqlClient } from "@effect/sql"
import { Cause, Context, Effect, Exit, Fiber, Layer, Option, Schema, Scope } from "effect"
import { gaugeAdd, runsInFlight } from "../../otel/Metrics.js"
import { Telemetry } from "../../otel/Telemetry.js"
import { AppConfig } from "../../platform/Config.js"
import { isolated } from "../../platform/Isolated.js"
import { decodeRows } from "../../platform/Rows.js"
import { NodeFailure, NodeRegistry } from "../nodes/NodeType.js"
import { type ActiveRun, ActiveRuns } from "./ActiveRuns.js"
import { TenantAdmission } from "./Admission.js"
import { recordCancel } from "./Cancel.js"
import { activate, StaleStart } from "./Interpreter.js"
import { type CommitFence, currentFence, Journal, ShardLost } from "./Journal.js"
import { RunSpans } from "./Ports.js"
import { RunEndHooks } from "./RunEndHooks.js"
import { RunEntity } from "./RunEntity.js"
import { RunEvents } from "./RunEvents.js"
import { childRunId, RunModule } from "./RunModule.js"
import type { RunRecord } from "./RunRecord.js"
import type { RunState } from "./RunState.js"
import { Versions } from "./Versions.js"

const heldRows = decodeRows("cluster_locks", Schema.Struct({ held: Schema.Boolean }))

interface HeldShard {
  readonly id: ShardId.ShardId
  readonly fence: CommitFence
}

/**
 * The run entity's handlers on the runner that owns the run. This process's active runs are
 * kept in one map: a `Run` for an active run is a wake-up, not a second activation; `Cancel`
 * interrupts the activation (its node calls are aborted), then records the cancellation.
 */
const RunHandlersLive = Layer.unwrapEffect(Effect.gen(function*() {
  const modules = yield* RunModule
  // Exactly what activations use (the build context holds more): every span of a run copies it.
  const context = Context.pick(Journal, Versions, NodeRegistry, Telemetry, RunSpans, RunEndHooks, RunEvents, TenantAdmission, SqlClient.SqlClient)(
    yield* Effect.context<Journal | Versions | NodeRegistry | Telemetry | RunSpans | RunEndHooks | RunEvents | TenantAdmission | SqlClient.SqlClient>()
  )
  const active = yield* ActiveRuns
  const sharding = yield* Sharding.Sharding
  const sql = yield* SqlClient.SqlClient
  const { role, runnerLeaseSeconds } = yield* AppConfig
  // Shards whose loss this process has logged: once per loss, not once per run on it.
  const lost = new Set<string>()

  const controls = (runId: string, entry: ActiveRun) => ({
    // A parked run's entry stays (the sweep leaves it alone) until its line launches it again.
    parking: {
      runId,
      relaunch: Effect.suspend(() => {
        if (active.get(runId) === entry) active.delete(runId)
        return modules.launch(runId)
      })
    },
    takeWake: () => {
      const wake = entry.wake
      entry.wake = false
      return wake
    },
    wake: modules.wake,
    startChild: (parent: RunState, workflowId: string, input: Record<string, unknown>, nodeId: string) =>
      modules.create({
        id: childRunId(parent.run.id, nodeId),
        tenantId: parent.run.tenant_id,
        workflowId,
        triggerType: parent.run.trigger_type,
        isDryRun: parent.run.is_dry_run,
        input,
        parent: { runId: parent.run.id, nodeId }
      }).pipe(
        Effect.tap((child) => modules.launch(child.id)),
        Effect.map((child) => child.id),
        Effect.mapError((e) =>
          new NodeFailure({ kind: "dependency", message: e.code === "NOT_PUBLISHED" ? "the called AI Employee has no published version" : e.message })
        )
      )
  })

  const run = (runId: string, fresh: RunRecord | undefined, shard: HeldShard | undefined) =>
    Effect.gen(function*() {
      const existing = active.get(runId)
      if (existing !== undefined) {
        existing.wake = true
        return
      }
      const entry: ActiveRun = { wake: false, fiber: undefined }
      active.set(runId, entry)
      const loop = Effect.gen(function*() {
        let from = fresh
        for (;;) {
          const result = yield* Effect.scoped(activate(runId, controls(runId, entry), from)).pipe(
            Effect.catchSomeDefect((defect) => defect instanceof StaleStart ? Option.some(Effect.succeed("again" as const)) : Option.none())
          )
          from = undefined
          if (result === "parked") {
            entry.parked = true
            return
          }
          if (result === "idle" && !controls(runId, entry).takeWake()) return
        }
      }).pipe(
        Effect.mapInputContext((_: Context.Context<never>) => context),
        Effect.withTracerEnabled(true),
        Effect.annotateLogs({ run_id: runId, ...(fresh !== undefined ? { tenant_id: fresh.tenant_id } : {}) })
      )
      yield* gaugeAdd(runsInFlight, 1)
      // Settled on the activation's own fiber: when the cluster takes the shard away it interrupts
      // the handler, and nothing after an await there would run.
      const fiber = yield* Effect.fork(loop.pipe(Effect.onExit((exit) =>
        Effect.gen(function*() {
          yield* gaugeAdd(runsInFlight, -1)
          // A parked run's entry is all that stays of it here: not its finished fiber.
          if (entry.parked === true) entry.fiber = undefined
          else if (active.get(runId) === entry) active.delete(runId)
          yield* settled(runId, exit, shard)
        })
      )))
      entry.fiber = entry.parked === true ? undefined : fiber
      yield* Fiber.await(fiber)
    })

  // A shard given up in a rebalance or at shutdown is interrupted while its lease is still this
  // runner's (released after); one lost while frozen has gone to another runner. Unknown: held.
  const leaseHeld = (fence: CommitFence) =>
    sql`SELECT EXISTS (SELECT 1 FROM cluster_locks WHERE shard_id = ${fence.shardId} AND address = ${fence.address}
      AND acquired_at >= now() - make_interval(secs => ${fence.leaseSeconds})) AS held`.pipe(
      heldRows,
      Effect.map((rows) => rows[0]?.held !== false),
      Effect.orElseSucceed(() => true)
    )

  // A woken runner learns its loss either from a refused commit or from the cluster interrupting
  // the shard's entities (whichever comes first after the pause): both are said the same way.
  const settled = (runId: string, exit: Exit.Exit<void, unknown>, shard: HeldShard | undefined) =>
    Effect.gen(function*() {
      if (Exit.isSuccess(exit)) return
      const refused = shardLostIn(exit.cause)
      const lostBy = Option.isSome(refused)
        ? refused.value
        : Cause.isInterruptedOnly(exit.cause) && shard !== undefined && !sharding.hasShardId(shard.id) && !(yield* leaseHeld(shard.fence))
        ? shard.fence
        : undefined
      if (lostBy !== undefined) {
        const { address, shardId } = lostBy
        if (lost.has(shardId)) return
        lost.add(shardId)
        yield* Effect.logWarning(
          `Runner ${address} lost shard ${shardId} while it was not answering (its lease ran out and another runner took it over); its runs stopped here without writing and carry on there`
        )
      } else if (!Cause.isInterruptedOnly(exit.cause)) {
        yield* Effect.logWarning(`Run ${runId} stopped on an error; the recovery sweep will take it up again`, exit.cause)
      }
    })

  const recordCancelAndChildren = (runId: string) =>
    Effect.gen(function*() {
      const recorded = yield* recordCancel(runId, modules.wake)
      if (recorded.outcome !== "cancelled") return recorded
      for (const child of recorded.children) yield* modules.cancel(child)
      return { outcome: recorded.outcome, hitl_cancelled: recorded.hitl_cancelled }
    })

  const cancel = (runId: string) =>
    Effect.gen(function*() {
      const existing = active.get(runId)
      if (existing?.fiber !== undefined) yield* Fiber.interrupt(existing.fiber)
      const entry: ActiveRun = { wake: false, fiber: undefined }
      active.set(runId, entry)
      return yield* recordCancelAndChildren(runId).pipe(
        Effect.provide(context),
        Effect.withTracerEnabled(true),
        Effect.ensuring(Effect.sync(() => active.get(runId) === entry && active.delete(runId)))
      )
    })

  // Every commit of a run on a runner process is made under its shard's lease.
  const handlers = (shard: HeldShard | undefined) => {
    const fence = shard?.fence
    const fenced = <A, E, R>(effect: Effect.Effect<A, E, R>) => fence === undefined ? effect : Effect.locally(effect, currentFence, fence)
    return RunEntity.of({
      Run: (envelope) => {
        if (fence !== undefined) lost.delete(fence.shardId)
        return fenced(run(envelope.payload.runId, envelope.payload.fresh, shard))
      },
      Cancel: (envelope) => fenced(cancel(envelope.payload.runId))
    })
  }
  const build = Effect.map(
    Effect.all([Entity.CurrentAddress, Entity.CurrentRunnerAddress]),
    ([entity, runner]) =>
      handlers(
        role === "runners"
          ? {
            id: entity.shardId,
            fence: { shardId: entity.shardId.toString(), address: `${runner.host}:${runner.port}`, leaseSeconds: runnerLeaseSeconds }
          }
          : undefined
      )
  )
  return Layer.scopedDiscard(
    Effect.flatMap(Sharding.Sharding, (sharding) =>
      sharding.registerEntity(RunEntity, build, {
        concurrency: "unbounded",
        // An idle run entity goes soon (the cluster's reaper, as patched, looks every 500 ms): its state is
        // its rows, and a pass then closes a few entities, not 5 s of them (bench/README.md, twenty-sixth session).
        maxIdleTime: "100 millis"
      }).pipe(
        // The entity manager builds every run entity in the context it is registered in, and an
        // entity's finalizers diff that context against the reaper's: the handlers carry what they
        // use, so the registration sees only its scope.
        Effect.mapInputContext((registration: Context.Context<Scope.Scope>) => Context.pick(Scope.Scope)(registration))
      ))
  )
}))

const shardLostIn = (cause: Cause.Cause<unknown>): Option.Option<ShardLost> =>
  Option.fromNullable(Array.from(Cause.defects(cause)).find((defect): defect is ShardLost => defect instanceof ShardLost))

/**
 * Built seeing only what activations use: the entity manager keeps the context the entity is
 * registered in, and every activation's spans and fibers copy or compare it.
 */
export const RunEntityLive = isolated(
  RunHandlersLive,
  RunModule,
  Journal,
  Versions,
  NodeRegistry,
  Telemetry,
  RunSpans,
  RunEndHooks,
  RunEvents,
  TenantAdmission,
  ActiveRuns,
  SqlClient.SqlClient,
  Sharding.Sharding,
  AppConfig
)
