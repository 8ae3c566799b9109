import { RunnerAddress, SingleRunner } from "@effect/cluster"
import { NodeHttpClient } from "@effect/platform-node"
import { NodeClusterSocket } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Option } from "effect"
import { RunTraceStore } from "../../otel/RunTraceStore.js"
import { Telemetry } from "../../otel/Telemetry.js"
import { AppConfig } from "../../platform/Config.js"
import { isolated } from "../../platform/Isolated.js"
import type { Mailer } from "../../platform/Mailer.js"
import { AgentRunner } from "../agents/AgentRunner.js"
import { ChatModel } from "../models/ChatModel.js"
import type { MailIntegrations } from "../nodes/MailIntegrations.js"
import type { ManagedSchedules } from "../nodes/ManagedSchedules.js"
import { BuiltinNodes } from "../nodes/Nodes.js"
import { ExtraNodeTypes, NodeRegistry } from "../nodes/NodeType.js"
import type { NudgeCards } from "../nodes/NudgeCards.js"
import type { TicketDesk } from "../nodes/TicketDesk.js"
import { RunEntityLive } from "./Activations.js"
import { ActiveRuns } from "./ActiveRuns.js"
import { TenantAdmission, TenantModelCalls } from "./Admission.js"
import { ClusterWatchLive } from "./ClusterWatch.js"
import { Journal } from "./Journal.js"
import { RunPlacement } from "./Placement.js"
import { RunSpans } from "./Ports.js"
import { RecoveryLive } from "./Recovery.js"
import type { RunEndHooks } from "./RunEndHooks.js"
import { RunEvents } from "./RunEvents.js"
import { RunModule } from "./RunModule.js"
import { RunnerLoadLive } from "./RunnerLoad.js"
import { Versions } from "./Versions.js"

/** The model provider and the agent types on it: shared by agent nodes and the agents API. */
export const AgentsLive = AgentRunner.layer.pipe(
  Layer.provideMerge(ChatModel.layer),
  Layer.provide(TenantModelCalls.layer),
  Layer.provide(NodeHttpClient.layerUndici)
)

/**
 * Messages to runs are not stored, so no storage poll delays them; local messages skip
 * serialization. A runner that dies or stops answering (frozen, partitioned, a stalled event
 * loop) loses its shards after `RUNNER_LEASE_SECONDS`: runner processes hold shards by leases in
 * `cluster_locks` that they renew, not by session advisory locks (which a frozen process keeps,
 * its connection being alive); the recovery sweep then hands its runs to the others, and its
 * journal commits are fenced by the lease (Journal's `CommitFence`).
 */
const shardingConfig = (leaseSeconds: number, leased: boolean) => ({
  shardLockDisableAdvisory: leased,
  // On stop, a run's node gets 3 s to reach its checkpoint, then is interrupted (it runs again on
  // the next owner): the cluster's default (15 s) made a stop outlast Docker's 10 s.
  entityTerminationTimeout: Duration.seconds(3),
  entityMessagePollInterval: "1 second",
  entityReplyPollInterval: "1 second",
  simulateRemoteSerialization: false,
  shardLockExpiration: Duration.seconds(leaseSeconds),
  shardLockRefreshInterval: Duration.seconds(Math.max(1, leaseSeconds / 3)),
  runnerHealthCheckInterval: Duration.seconds(Math.max(1, leaseSeconds / 2))
} as const)

/**
 * Placement of runs: one process (`ROLE=all`) is a single runner; `ROLE=runners` processes are
 * socket runners sharing the shards (a dead runner's shards move to the others); `ROLE=gateway`
 * and `ROLE=services` only send messages to the runners.
 */
const PlacementLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => {
    const sharding = shardingConfig(config.runnerLeaseSeconds, config.role !== "all")
    switch (config.role) {
      case "all":
        return SingleRunner.layer({ runnerStorage: "sql", shardingConfig: sharding })
      case "runners":
        return NodeClusterSocket.layer({
          storage: "sql",
          shardingConfig: { ...sharding, runnerAddress: Option.some(RunnerAddress.make(config.runnerHost, config.runnerPort)) }
        })
      case "gateway":
      case "services":
        return NodeClusterSocket.layer({ storage: "sql", clientOnly: true, shardingConfig: sharding })
    }
  })
).pipe(Layer.orDie)

/**
 * Built apart from the platform's services: the cluster keeps the context its sharding was built
 * in and copies it into every entity and every message's fibers.
 */
export const ShardingLive = isolated(PlacementLive, AppConfig, SqlClient.SqlClient)

/** What the kernel reads and writes through, besides placement. */
const JournalLive = Layer.mergeAll(
  Journal.layer,
  Versions.layer,
  RunEvents.layer,
  RunTraceStore.layer,
  RunPlacement.Default,
  TenantAdmission.layer,
  ActiveRuns.layer
)

/** A run's spans go into its own commits; its root span is exported at its end when spans go out over OTLP. */
const RunSpansLive = Layer.effect(
  RunSpans,
  Effect.gen(function*() {
    const telemetry = yield* Telemetry
    const traces = yield* RunTraceStore
    return { take: telemetry.takeRun, ended: (runId) => telemetry.exporting ? traces.exportRoot(runId) : Effect.void }
  })
)

/**
 * The run kernel: the run module (the one owner of runs), the run entity's handlers and the
 * recovery sweep, over the journal and placement. `hooks` follow runs to their end (chat) and are
 * built inside the kernel, so that they may start and release runs themselves. Node types are the
 * built-in ones and those of ExtraNodeTypes.
 */
export const kernelLive = <A, E, R>(hooks: Layer.Layer<RunEndHooks | A, E, R>) =>
  Layer.mergeAll(RunEntityLive, RecoveryLive, ClusterWatchLive, RunnerLoadLive).pipe(
    Layer.provideMerge(Layer.unwrapEffect(
      Effect.map(
        ExtraNodeTypes,
        (extra) => NodeRegistry.layer<AgentRunner | Mailer | ManagedSchedules | NudgeCards | MailIntegrations | TicketDesk>([...BuiltinNodes, ...extra])
      )
    )),
    Layer.provideMerge(hooks),
    Layer.provideMerge(AgentsLive),
    Layer.provideMerge(RunModule.layer),
    Layer.provideMerge(RunSpansLive),
    Layer.provideMerge(JournalLive),
    Layer.provideMerge(ShardingLive)
  )
