import { ClusterWorkflowEngine, SingleRunner } from "@effect/cluster"
import { FetchHttpClient } from "@effect/platform"
import { Effect, Layer } from "effect"
import { ChatModel } from "../models/ChatModel.js"
import { AgentNodeLive } from "../nodes/AgentNode.js"
import { NodeRegistry } from "../nodes/NodeType.js"
import { UnavailableNodesLive } from "../nodes/UnavailableNodes.js"
import { Cancellation } from "./Cancellation.js"
import { HitlStore } from "./HitlStore.js"
import { RunEvents } from "./RunEvents.js"
import { RunStore } from "./RunStore.js"
import { RunWorkflow, RunWorkflowLive } from "./RunWorkflow.js"

/** The node types: one layer each. */
const NodeTypesLive = Layer.mergeAll(AgentNodeLive, UnavailableNodesLive).pipe(
  Layer.provideMerge(NodeRegistry.layer),
  Layer.provide(ChatModel.layer),
  Layer.provide(FetchHttpClient.layer)
)

/** Durable runs: @effect/workflow on a single-runner @effect/cluster whose state lives in PostgreSQL. */
export const ClusterLive = ClusterWorkflowEngine.layer.pipe(
  Layer.provideMerge(
    SingleRunner.layer({
      runnerStorage: "sql",
      shardingConfig: { entityMessagePollInterval: "1 second", entityReplyPollInterval: "200 millis" }
    })
  ),
  Layer.orDie
)

export const EngineSupportLive = Layer.mergeAll(RunStore.layer, RunEvents.layer, HitlStore.layer, Cancellation.layer)

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

export const EngineLive = RecoveryLive.pipe(
  Layer.provideMerge(RunWorkflowLive),
  Layer.provideMerge(NodeTypesLive),
  Layer.provideMerge(EngineSupportLive),
  Layer.provideMerge(ClusterLive)
)
