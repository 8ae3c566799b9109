import { ClusterWorkflowEngine, RunnerAddress, SingleRunner } from "@effect/cluster"
import { NodeClusterSocket } from "@effect/platform-node"
import { FetchHttpClient } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { AppConfig } from "../../services/shared/Config.js"
import { AgentRunner } from "../agents/AgentRunner.js"
import { ChatModel } from "../models/ChatModel.js"
import { AgentNodeLive } from "../nodes/AgentNode.js"
import { NodeRegistry } from "../nodes/NodeType.js"
import { UnavailableNodesLive } from "../nodes/UnavailableNodes.js"
import { Cancellation } from "./Cancellation.js"
import { HitlStore } from "./HitlStore.js"
import { RunEvents } from "./RunEvents.js"
import { RunStore } from "./RunStore.js"
import { RunWorkflow, RunWorkflowLive } from "./RunWorkflow.js"
import { RunTraces } from "../../otel/RunTraces.js"
import type { RunEndHooks } from "./RunHooks.js"

/** The node types: one layer each. */
/** The model provider and the agent types on it: shared by agent nodes and the agents API. */
export const AgentsLive = AgentRunner.layer.pipe(Layer.provideMerge(ChatModel.layer), Layer.provide(FetchHttpClient.layer))

const NodeTypesLive = Layer.mergeAll(AgentNodeLive, UnavailableNodesLive).pipe(
  Layer.provideMerge(NodeRegistry.layer)
)

const shardingConfig = { entityMessagePollInterval: "100 millis", entityReplyPollInterval: "200 millis" } as const

/**
 * Durable runs: @effect/workflow on @effect/cluster with its state in PostgreSQL. One process
 * (`ROLE=all`) is a single runner; `ROLE=runners` processes are socket runners that share the
 * work between them; `ROLE=gateway` and `ROLE=services` only send work to the runners.
 */
const ShardingLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => {
    switch (config.role) {
      case "all":
        return SingleRunner.layer({ runnerStorage: "sql", shardingConfig })
      case "runners":
        return NodeClusterSocket.layer({
          storage: "sql",
          shardingConfig: {
            ...shardingConfig,
            runnerAddress: Option.some(RunnerAddress.make(config.runnerHost, config.runnerPort))
          }
        })
      case "gateway":
      case "services":
        return NodeClusterSocket.layer({ storage: "sql", clientOnly: true, shardingConfig })
    }
  })
)

export const ClusterLive = ClusterWorkflowEngine.layer.pipe(Layer.provideMerge(ShardingLive), Layer.orDie)

export const EngineSupportLive = Layer.mergeAll(RunStore.layer, RunEvents.layer, HitlStore.layer, Cancellation.layer, RunTraces.layer)

/**
 * Runs that were accepted but whose execution may not have reached the engine (a crash between
 * the insert and the start) are started again; the run id keys the execution, so nothing runs
 * twice.
 */
const RecoveryLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const store = yield* RunStore
    const ids = yield* store.pendingRunIds
    yield* Effect.forEach(ids, (runId) => RunWorkflow.execute({ runId }, { discard: true }), { discard: true })
    if (ids.length > 0) yield* Effect.log(`Resumed ${ids.length} unfinished run(s)`)
  })
)

/**
 * The engine, with `hooks`: who follows runs to their end (chat). They are built inside the
 * engine, so they may start runs themselves and use the models and run events.
 */
export const engineLive = <A, E, R>(hooks: Layer.Layer<RunEndHooks | A, E, R>) => RecoveryLive.pipe(
  Layer.provideMerge(RunWorkflowLive),
  Layer.provideMerge(hooks),
  Layer.provideMerge(NodeTypesLive),
  Layer.provideMerge(AgentsLive),
  Layer.provideMerge(EngineSupportLive),
  Layer.provideMerge(ClusterLive)
)
