import { createHash } from "node:crypto"
import { Activity, DurableDeferred, Workflow } from "@effect/workflow"
import { Effect, Either, Schema } from "effect"
import { type DagNode, DagNode as DagNodeSchema, type Edge, Edge as EdgeSchema } from "../../schemas/Dag.js"
import type { RunContext } from "../dag/Context.js"
import { lastCompletedOutput, type NodeState, settleSkips } from "../dag/Plan.js"
import { renderDeep, renderString } from "../dag/Render.js"
import { Cancellation } from "./Cancellation.js"
import { childDeferred, ChildOutcome, hitlDeferred } from "./Deferreds.js"
import { HitlStore } from "./HitlStore.js"
import { NodeRegistry } from "../nodes/NodeType.js"
import { RunEvents } from "./RunEvents.js"
import type { WorkflowConfig } from "../../schemas/Workflow.js"
import { type LoadedRun, RunStore } from "./RunStore.js"
import { TokenBuffer } from "./TokenBuffer.js"
import { chatReply } from "./ChatReply.js"
import { RunEndHooks } from "./RunHooks.js"
import { RUN_ID, runRootSpan, stepSpanId } from "../../otel/RunTrace.js"
import { RunTraces } from "../../otel/RunTraces.js"
import { Telemetry } from "../../otel/Telemetry.js"

/** One AI Employee run: a durable workflow execution keyed by the run id. */
export const RunWorkflow = Workflow.make({
  name: "AiEmployeeRun",
  payload: Schema.Struct({ runId: Schema.String }),
  idempotencyKey: ({ runId }) => runId
})

/** A step that failed, as the error of its span; the run gets it back as an outcome. */
class StepFailed extends Schema.TaggedError<StepFailed>()("StepFailed", { error: Schema.String, detail: Schema.String }) {
  override get message() {
    return this.detail
  }
}

const NodeOutcome = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("completed"), output: Schema.Unknown, hitl: Schema.optional(Schema.Unknown) }),
  Schema.Struct({ kind: Schema.Literal("skipped"), hitl: Schema.optional(Schema.Unknown) }),
  Schema.Struct({ kind: Schema.Literal("failed"), error: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("cancelled") })
)
type NodeOutcome = typeof NodeOutcome.Type

const LoadedRecord = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  workflow_id: Schema.String,
  trigger_type: Schema.String,
  is_dry_run: Schema.Boolean,
  parent_node_id: Schema.NullOr(Schema.String),
  parent_deferred_token: Schema.NullOr(Schema.String)
})

const Loaded = Schema.Struct({
  status: Schema.String,
  run: LoadedRecord,
  config: Schema.Unknown,
  nodes: Schema.Array(Schema.Unknown),
  edges: Schema.Array(Schema.Unknown),
  outputs: Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.String })),
  input: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  triggerType: Schema.String
})

/** The id a call_aie node's child run gets: derived, so a re-run activity finds the same child. */
export const childRunId = (runId: string, nodeId: string) => {
  const h = createHash("sha256").update(`${runId}/${nodeId}`).digest("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}

const asObject = (u: unknown): Record<string, unknown> =>
  u !== null && typeof u === "object" && !Array.isArray(u) ? (u as Record<string, unknown>) : {}

/**
 * The run body. It replays from the top on every resume, so everything here is deterministic;
 * every effect on the world (SQL, model calls, events) happens inside an activity, whose result
 * is stored and replayed. Node activities are idempotent by run and node: a completed step is
 * never executed again.
 */
export const RunWorkflowLive = RunWorkflow.toLayer(
  Effect.fn(function*({ runId }) {
    const store = yield* RunStore
    const events = yield* RunEvents
    const registry = yield* NodeRegistry
    const cancellation = yield* Cancellation
    const hitlStore = yield* HitlStore
    const telemetry = yield* Telemetry
    const traces = yield* RunTraces
    const hooks = yield* RunEndHooks

    // Loading the run also moves it from pending to running: one activity instead of two.
    const loaded = yield* Activity.make({
      name: "load",
      success: Loaded,
      execute: Effect.tap(store.load(runId), (l) => l.run.status === "pending" ? store.transition(runId, "start") : Effect.void).pipe(Effect.map((l: LoadedRun) => {
        const dag = l.dag
        return {
          status: l.run.status,
          run: {
            id: l.run.id,
            tenant_id: l.run.tenant_id,
            workflow_id: l.run.workflow_id,
            trigger_type: l.run.trigger_type,
            is_dry_run: l.run.is_dry_run,
            parent_node_id: l.run.parent_node_id,
            parent_deferred_token: l.run.parent_deferred_token
          },
          config: l.config,
          nodes: Array.isArray(dag.nodes) ? dag.nodes : [],
          edges: Array.isArray(dag.edges) ? dag.edges : [],
          outputs: (Array.isArray(dag.outputs) ? dag.outputs : []).flatMap((o: unknown) => {
            const out = asObject(o)
            return typeof out.name === "string" && typeof out.value === "string" ? [{ name: out.name, value: out.value }] : []
          }),
          input: l.run.input_params,
          triggerType: l.run.trigger_type
        }
      }))
    })
    if (!["pending", "running", "paused"].includes(loaded.status)) return

    const nodes = loaded.nodes.flatMap((n) => {
      const d = Schema.decodeUnknownEither(DagNodeSchema)(n)
      return Either.isRight(d) ? [d.right] : []
    })
    const edges: ReadonlyArray<Edge> = loaded.edges.flatMap((e) => {
      const d = Schema.decodeUnknownEither(EdgeSchema)(e)
      return Either.isRight(d) ? [d.right] : []
    })
    const byId = new Map(nodes.map((n) => [n.id, n]))
    const ids = nodes.map((n) => n.id)
    const states = new Map<string, NodeState>()
    const completionOrder: Array<string> = []
    const chat = asObject(loaded.input.chat)
    const context: RunContext = {
      workflow_input: loaded.input,
      nodes: {},
      chat: typeof chat.message === "string" ? { message: chat.message, history: Array.isArray(chat.history) ? chat.history : [] } : undefined,
      run: { id: runId, trigger_type: loaded.triggerType }
    }
    const nodesContext = context.nodes as Record<string, { output?: unknown; hitl?: unknown }>


    const fail = (error: string) =>
      Activity.make({
        name: "fail",
        execute: Effect.gen(function*() {
          // Re-run after a crash, the transition is already done: the event still goes out (once).
          if ((yield* store.transition(runId, "fail", { error })) !== undefined || (yield* store.status(runId)) === "failed") {
            yield* hooks.ended({ runId, status: "failed", error })
            yield* events.append(runId, "run_failed", { status: "failed", error }, "run_failed")
          }
          yield* traces.exportRoot(runId)
          yield* notifyParent({ status: "failed", output: null, error })
          yield* cancellation.release(runId)
        })
      })

    // Everything below reads the run record loaded once at the start: it does not change.
    const run = loaded.run
    const config = loaded.config as WorkflowConfig

    const notifyParent = (outcome: ChildOutcome) =>
      Effect.gen(function*() {
        if (run.parent_deferred_token === null || run.parent_node_id === null) return
        yield* DurableDeferred.succeed(childDeferred(run.parent_node_id), {
          token: DurableDeferred.Token.make(run.parent_deferred_token),
          value: outcome
        })
      })

    /** The span of one node execution: a child of the run's root span, in the run's trace. */
    const nodeSpan = (node: DagNode, extra: Record<string, unknown> = {}) =>
      Effect.withSpan(`node ${node.id}`, {
        parent: runRootSpan(runId),
        attributes: { [RUN_ID]: runId, "node.id": node.id, "node.type": node.type, "node.name": node.name ?? node.id, ...extra }
      })

    /** One node as an activity: runs the node type, racing the run's cancel signal. */
    const executeNode = (node: DagNode, snapshot: RunContext) =>
      Activity.make({
        name: `node:${node.id}`,
        success: NodeOutcome,
        execute: Effect.gen(function*() {
          const done = yield* store.completedStep(runId, node.id)
          if (done !== undefined) return { kind: "completed" as const, output: done.output }
          if ((yield* store.status(runId)) === "cancelled") return { kind: "cancelled" as const }
          const outcome = yield* Effect.gen(function*() {
            const stepId = yield* store.startStep(run, node, null)
            yield* Effect.annotateCurrentSpan({ "step.id": stepId })
            const step = { step_id: stepId, node_id: node.id }
            yield* events.append(runId, "step_started", step, `step_started:${node.id}`)
            const tokens = yield* TokenBuffer.make((delta, n, attempt) =>
              events.append(runId, "token", { ...step, delta }, `token:${node.id}:${attempt}:${n}`)
            )
            const outcome = yield* registry.execute({
              runId,
              tenantId: run.tenant_id,
              stepId,
              node,
              context: snapshot,
              config,
              isDryRun: run.is_dry_run,
              emitToken: tokens.push
            }).pipe(
              Effect.either,
              Effect.map((r) => ({ _tag: "ran" as const, r })),
              Effect.race(cancellation.awaitCancel(runId).pipe(Effect.as({ _tag: "cancelled" as const })))
            )
            yield* tokens.flush
            if (outcome._tag === "cancelled") {
              yield* store.finishStep(stepId, "cancelled", { error: "Run cancelled" })
              yield* Effect.annotateCurrentSpan({ "step.status": "cancelled" })
              return { kind: "cancelled" as const }
            }
            if (Either.isLeft(outcome.r)) {
              const error = outcome.r.left.message
              yield* store.finishStep(stepId, "failed", { error })
              yield* events.append(runId, "step_failed", { ...step, error }, `step_failed:${node.id}`)
              yield* Effect.annotateCurrentSpan({ "step.status": "failed" })
              // Failing the span marks it as an error in the trace; the outcome is recovered below.
              return yield* new StepFailed({ error: `Node '${node.id}' failed: ${error}`, detail: error })
            }
            const result = outcome.r.right
            yield* store.finishStep(stepId, "completed", { output: result.output, usage: result.usage })
            if (node.type === "agent") {
              yield* events.append(runId, "agent_completed", { ...step, output: result.output }, `agent_completed:${node.id}`)
            }
            yield* events.append(runId, "step_completed", { ...step, status: "completed" }, `step_completed:${node.id}`)
            yield* Effect.annotateCurrentSpan({ "step.status": "completed" })
            return { kind: "completed" as const, output: result.output }
          }).pipe(
            nodeSpan(node),
            Effect.catchTag("StepFailed", (e) => Effect.succeed({ kind: "failed" as const, error: e.error }))
          )
          // The step's spans are stored before the activity's result is: a crash cannot lose them.
          yield* telemetry.flush
          return outcome
        })
      })

    /** call_aie: starts the child run once and waits durably for it to end. */
    const callChild = (node: DagNode & { type: "call_aie" }, snapshot: RunContext) =>
      Effect.gen(function*() {
        const childId = childRunId(runId, node.id)
        const token = yield* DurableDeferred.token(childDeferred(node.id))
        const started = yield* Activity.make({
          name: `child-start:${node.id}`,
          success: Schema.Struct({
            ok: Schema.Boolean,
            error: Schema.NullOr(Schema.String),
            stepId: Schema.NullOr(Schema.String),
            startedAt: Schema.optional(Schema.Number)
          }),
          execute: Effect.gen(function*() {
            const startedAt = Date.now()
            const stepId = yield* store.startStep(run, node, null)
            yield* events.append(runId, "step_started", { step_id: stepId, node_id: node.id }, `step_started:${node.id}`)
            const input = asObject(renderDeep(node.call_aie_config.input_params ?? {}, snapshot))
            const created = yield* store.createChild(run, node.call_aie_config.workflow_id, childId, node.id, token, input)
            if (created !== undefined) {
              yield* store.finishStep(stepId, "failed", { error: created })
              return { ok: false, error: created, stepId, startedAt }
            }
            yield* RunWorkflow.execute({ runId: childId }, { discard: true })
            return { ok: true, error: null, stepId, startedAt }
          })
        })
        if (!started.ok) return { kind: "failed" as const, error: `Node '${node.id}' failed: ${started.error}` }
        const child = yield* DurableDeferred.await(childDeferred(node.id))
        return yield* Activity.make({
          name: `child-done:${node.id}`,
          success: NodeOutcome,
          execute: Effect.gen(function*() {
            const step = { step_id: started.stepId!, node_id: node.id }
            yield* traces.emitChildStep({
              runId,
              nodeId: node.id,
              nodeName: node.name ?? node.id,
              stepId: started.stepId!,
              childRunId: childId,
              childStatus: child.status,
              start: new Date(started.startedAt ?? Date.now()),
              end: new Date(),
              error: child.error,
              spanId: stepSpanId(runId, node.id)
            })
            yield* telemetry.flush
            if (child.status === "completed") {
              yield* store.finishStep(started.stepId!, "completed", { output: child.output })
              yield* events.append(runId, "step_completed", { ...step, status: "completed" }, `step_completed:${node.id}`)
              return { kind: "completed" as const, output: child.output }
            }
            if (child.status === "cancelled") {
              yield* store.finishStep(started.stepId!, "cancelled", { error: "Child run cancelled" })
              return { kind: "cancelled" as const }
            }
            yield* store.finishStep(started.stepId!, "failed", { error: child.error ?? "child run failed" })
            yield* events.append(runId, "step_failed", { ...step, error: child.error }, `step_failed:${node.id}`)
            return { kind: "failed" as const, error: `Node '${node.id}' failed: child run ${child.error ?? "failed"}` }
          })
        })
      })

    /** A node's HITL block: create the request, pause, wait durably for the answer, resume. */
    const askHuman = (node: DagNode) =>
      Effect.gen(function*() {
        const token = yield* DurableDeferred.token(hitlDeferred(node.id))
        yield* Activity.make({
          name: `hitl-open:${node.id}`,
          execute: Effect.gen(function*() {
            const requestId = yield* hitlStore.open(run, node, token)
            yield* store.transition(runId, "pause")
            yield* events.append(runId, "run_paused", { status: "paused", node_id: node.id, request_id: requestId }, `run_paused:${node.id}`)
          })
        })
        const answer = yield* DurableDeferred.await(hitlDeferred(node.id))
        yield* Activity.make({
          name: `hitl-close:${node.id}`,
          execute: Effect.gen(function*() {
            if (answer.cancelled) return
            if ((yield* hitlStore.pendingCount(runId)) === 0 && (yield* store.transition(runId, "resume")) !== undefined) {
              yield* events.append(runId, "run_resumed", { status: "running", node_id: node.id }, `run_resumed:${node.id}`)
            }
          })
        })
        return answer
      })

    const runNode = (node: DagNode) =>
      Effect.gen(function*() {
        let hitl: unknown = undefined
        if (node.hitl !== undefined) {
          const answer = yield* askHuman(node)
          if (answer.cancelled) return { kind: "cancelled" as const }
          hitl = answer.response
          nodesContext[node.id] = { ...nodesContext[node.id], hitl }
          if (!answer.approved) return { kind: "skipped" as const, hitl }
        }
        const snapshot: RunContext = { ...context, nodes: { ...nodesContext } }
        const outcome = node.type === "call_aie" ? yield* callChild(node, snapshot) : yield* executeNode(node, snapshot)
        return outcome.kind === "completed" && hitl !== undefined ? { ...outcome, hitl } : outcome
      })

    for (;;) {
      const { ready, skipped } = settleSkips(ids, edges, states, context)
      if (skipped.length > 0) {
        yield* Activity.make({
          name: `skip:${skipped.join(",")}`,
          execute: Effect.gen(function*() {
            yield* store.skipSteps(run, skipped.map((id) => byId.get(id)!))
            for (const id of skipped) yield* events.append(runId, "step_skipped", { node_id: id }, `step_skipped:${id}`)
          })
        })
      }
      if (ready.length === 0) break
      for (const id of ready) states.set(id, "running")
      const outcomes = yield* Effect.forEach(ready, (id) => runNode(byId.get(id)!), { concurrency: "unbounded" })
      for (const [index, outcome] of outcomes.entries()) {
        const id = ready[index]!
        if (outcome.kind === "cancelled") return
        if (outcome.kind === "failed") return yield* fail(outcome.error)
        if (outcome.kind === "skipped") {
          states.set(id, "skipped")
          nodesContext[id] = { hitl: outcome.hitl }
          yield* Activity.make({
            name: `skip:${id}`,
            execute: Effect.gen(function*() {
              yield* store.skipSteps(run, [byId.get(id)!])
              yield* events.append(runId, "step_skipped", { node_id: id, reason: "rejected" }, `step_skipped:${id}`)
            })
          })
          continue
        }
        states.set(id, "completed")
        completionOrder.push(id)
        nodesContext[id] = { output: outcome.output, ...(outcome.hitl !== undefined ? { hitl: outcome.hitl } : {}) }
      }
    }

    const named = Object.fromEntries(loaded.outputs.map((o) => [o.name, renderString(o.value, context) ?? null]))
    const output = loaded.outputs.length > 0 ? named : lastCompletedOutput(completionOrder, context) ?? null
    const reply = chatReply(nodes, completionOrder, context, named)
    yield* Activity.make({
      name: "complete",
      execute: Effect.gen(function*() {
        if (
          (yield* store.transition(runId, "complete", { output, named_outputs: named })) !== undefined ||
          (yield* store.status(runId)) === "completed"
        ) {
          yield* hooks.ended({ runId, status: "completed", reply })
          yield* events.append(runId, "run_completed", { status: "completed" }, "run_completed")
        }
        yield* traces.exportRoot(runId)
        yield* notifyParent({ status: "completed", output, error: null })
        yield* cancellation.release(runId)
      })
    })
  })
)
