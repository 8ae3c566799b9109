import { Effect, Either } from "effect"
import { randomUUID } from "node:crypto"
import { annotateSpan, currentSpanId } from "../../otel/FiberSpan.js"
import { nodeDuration, record } from "../../otel/Metrics.js"
import { RUN_ID, runRootSpan } from "../../otel/RunTraceIds.js"
import type { NodeEnvelope } from "../../schemas/Dag.js"
import { isRetryable, type RunEventType } from "../../schemas/RunLifecycle.js"
import type { RunContext } from "../dag/Context.js"
import { type NodeExecution, NodeFailure, type NodeImplementation, NodeRegistry } from "../nodes/NodeType.js"
import { Batch, type EventWrite, type StepWrite } from "./Batch.js"
import type { Committed } from "./Journal.js"
import type { RunState } from "./RunState.js"

/** What a node's turn came to; its writes are committed by the loop (with the run's end when it is the last). */
export type Outcome =
  | { readonly tag: "completed"; readonly nodeId: string; readonly output: unknown; readonly batch: Batch }
  | { readonly tag: "failed"; readonly nodeId: string; readonly error: string; readonly batch: Batch }
  | { readonly tag: "skipped"; readonly nodeId: string; readonly batch: Batch }
  | { readonly tag: "waiting"; readonly nodeId: string; readonly batch: Batch }

export interface NodeEnv {
  readonly state: RunState
  /** Commits under the run's lock, with the carried writes and the next event numbers. */
  readonly commit: (batch: Batch) => Effect.Effect<Committed>
  readonly takeSpans: () => ReadonlyArray<Batch["spans"][number]>
  readonly startChild: (workflowId: string, input: Record<string, unknown>, nodeId: string) => Effect.Effect<string, NodeFailure>
}

const TOKEN_FLUSH_CHARS = 64
const TOKEN_FLUSH_MS = 100
const TOKEN_COMMIT_MS = 250

const TERMINAL = ["completed", "failed", "cancelled", "skipped"]

/** The HITL gate before a node: open the request, wait for it, or pass (approved) / skip (rejected). */
const gate = (node: NodeEnvelope, env: NodeEnv): Outcome | "pass" => {
  const { state } = env
  const hitl = node.hitl
  if (hitl === undefined) return "pass"
  const request = state.hitl.get(node.id)
  if (request === undefined) {
    const id = randomUUID()
    const batch = new Batch()
    batch.hitl.push({
      id,
      workflow_id: state.run.workflow_id,
      node_id: node.id,
      type: hitl.type,
      prompt: hitl.prompt,
      choices: hitl.choices ?? null,
      form_schema: hitl.form_schema ?? null,
      assignee: hitl.assignee
    })
    batch.event("run_paused", { status: "paused", node_id: node.id, request_id: id }, `run_paused:${node.id}`, undefined)
    batch.run({ from: ["pending", "running"], to: "paused" })
    state.hitl.set(node.id, { id, node_id: node.id, status: "pending", response: undefined })
    state.status = "paused"
    return { tag: "waiting", nodeId: node.id, batch }
  }
  if (request.status === "pending" || request.status === "claimed") return { tag: "waiting", nodeId: node.id, batch: new Batch() }
  resumeIfLastPause(node.id, env)
  const response: { readonly approved?: unknown } | null = request.status === "completed" ? request.response ?? null : null
  state.nodesContext[node.id] = { ...state.nodesContext[node.id], hitl: response }
  const approved = request.status === "completed" &&
    (hitl.type !== "approval" || response?.approved === true)
  if (approved) return "pass"
  const batch = new Batch()
  batch.step(state.closedStep(node, "skipped"))
  batch.event("step_skipped", { node_id: node.id, reason: "rejected" }, `step_skipped:${node.id}`, undefined)
  return { tag: "skipped", nodeId: node.id, batch }
}

/** A paused run whose last open pause is resolved goes back to running (with the next commit). */
const resumeIfLastPause = (nodeId: string, env: NodeEnv) => {
  const { state } = env
  if (state.status !== "paused" || state.hasOpenPause(nodeId)) return
  state.carry.event("run_resumed", { status: "running", node_id: nodeId }, `run_resumed:${nodeId}`, undefined)
  state.carry.run({ from: ["paused"], to: "running" })
  state.status = "running"
}

/** The resolution of the node's wait when it has one that is resolved; `pending` when it waits on. */
const waitResolution = (node: NodeEnvelope, state: RunState): { readonly value: unknown } | "pending" | undefined => {
  const wait = state.waits.get(node.id)
  const child = state.children.get(node.id)
  if (wait === undefined && (node.type !== "call_aie" || child === undefined)) return undefined
  if (wait === undefined || wait.kind === "child") {
    const c = child ?? [...state.children.values()].find((x) => x.id === wait?.key)
    if (c === undefined) return "pending"
    return TERMINAL.includes(c.status)
      ? { value: { status: c.status === "skipped" ? "failed" : c.status, output: c.output ?? null, error: c.error ?? null } }
      : "pending"
  }
  return wait.resolved ? { value: wait.resolution ?? null } : "pending"
}

/**
 * One node's turn: the HITL gate, then its implementation (or the resumption of its wait), with
 * a start commit (step row and step_started) and an end batch (the checkpoint: output, events,
 * spans) that the loop commits.
 */
export const runNode = (node: NodeEnvelope, env: NodeEnv) =>
  Effect.gen(function*() {
    const { state } = env
    const registry = yield* NodeRegistry
    const gated = gate(node, env)
    if (gated !== "pass") return gated
    const implementation = registry.get(node.type)
    const stepId = state.stepIdOf(node.id)
    const step = { step_id: stepId, node_id: node.id }
    const resolution = waitResolution(node, state)
    if (resolution === "pending") return { tag: "waiting", nodeId: node.id, batch: new Batch() } satisfies Outcome
    const attempt = resolution === undefined ? (state.attempts.get(node.id) ?? 0) + 1 : state.attempts.get(node.id) ?? 1
    state.attempts.set(node.id, attempt)
    const stepRow = (
      status: "running" | "completed" | "failed",
      extra: Pick<StepWrite, "output" | "error" | "error_kind" | "error_code" | "usage"> = {}
    ) => ({
      id: stepId,
      node_id: node.id,
      node_type: node.type,
      node_name: node.name ?? null,
      status,
      attempt,
      position: state.positionOf(node.id),
      started: status === "running",
      finished: status !== "running",
      ...extra
    })
    if (resolution !== undefined && state.waits.get(node.id)?.kind !== "child") resumeIfLastPause(node.id, env)

    // Streamed text goes out in small batches; a long stream is committed as it goes. The clocks
    // start at the first text, not at the node's start: a reply that arrives whole after a wait
    // (a busy process, a slow first token) is one commit with the node's end, not one more.
    const tokens: Array<EventWrite> = []
    let buffer = ""
    let lastFlush = 0
    let lastCommit = 0
    let spanId: string | undefined
    const cut = () => {
      if (buffer.length === 0) return
      tokens.push({ type: "token", payload: { ...step, delta: buffer }, key: undefined, spanId })
      buffer = ""
      lastFlush = Date.now()
    }
    const emitToken = (delta: string) =>
      Effect.suspend(() => {
        if (lastFlush === 0) lastFlush = Date.now()
        if (lastCommit === 0) lastCommit = lastFlush
        buffer += delta
        if (buffer.length >= TOKEN_FLUSH_CHARS || Date.now() - lastFlush >= TOKEN_FLUSH_MS) cut()
        if (tokens.length === 0 || Date.now() - lastCommit < TOKEN_COMMIT_MS) return Effect.void
        const batch = new Batch()
        batch.events.push(...tokens.splice(0))
        lastCommit = Date.now()
        return Effect.asVoid(env.commit(batch))
      })
    /** An event of the step (a tool call): committed at once, after the text streamed before it. */
    const emitEvent = (type: RunEventType, payload: Record<string, unknown>) =>
      Effect.suspend(() => {
        cut()
        tokens.push({ type, payload: { ...payload, ...step }, key: undefined, spanId })
        const batch = new Batch()
        batch.events.push(...tokens.splice(0))
        lastCommit = Date.now()
        return Effect.asVoid(env.commit(batch))
      })

    const execution: NodeExecution = {
      runId: state.run.id,
      tenantId: state.run.tenant_id,
      workflowId: state.run.workflow_id,
      stepId,
      node,
      context: { ...state.context, nodes: { ...state.nodesContext } } satisfies RunContext,
      config: state.version.config,
      isDryRun: state.run.is_dry_run,
      triggerType: state.run.trigger_type,
      startedBy: state.run.created_by,
      searchOverrides: state.run.search_overrides,
      emitToken,
      emitEvent,
      startChild: (workflowId, input) => env.startChild(workflowId, input, node.id)
    }
    const run = (impl: NodeImplementation | undefined) =>
      impl === undefined
        ? Effect.fail(new NodeFailure({ kind: "unavailable", message: `No runtime for node type '${node.type}'` }))
        : resolution !== undefined && impl.resume !== undefined
        ? impl.resume(execution, resolution.value)
        : impl.execute(execution)
    const began = performance.now()
    const result = yield* Effect.gen(function*() {
      spanId = yield* currentSpanId
      if (resolution === undefined) {
        yield* env.commit(new Batch().step(stepRow("running")).event("step_started", step, `step_started:${node.id}`, spanId))
      }
      const outcome = yield* run(implementation).pipe(Effect.tapError(() => annotateSpan({ "step.status": "failed" })))
      yield* annotateSpan({ "step.status": outcome._tag === "Done" ? "completed" : "waiting" })
      return outcome
    }).pipe(
      Effect.withSpan(`node ${node.id}`, {
        parent: runRootSpan(state.run.id),
        attributes: { [RUN_ID]: state.run.id, "node.id": node.id, "node.type": node.type, "node.name": node.name ?? node.id, "step.id": stepId },
        captureStackTrace: false
      }),
      Effect.either
    )
    yield* record(
      nodeDuration(["node.type", node.type], ["outcome", Either.isLeft(result) ? "failed" : result.right._tag === "Wait" ? "waiting" : "completed"]),
      (performance.now() - began) / 1000
    )
    cut()
    const batch = new Batch()
    batch.events.push(...tokens)
    batch.spans.push(...env.takeSpans())
    if (Either.isLeft(result)) {
      const { code, kind, message: error } = result.left
      batch.step(stepRow("failed", { error, error_kind: kind, ...(code === undefined ? {} : { error_code: code }) }))
      batch.event(
        "step_failed",
        { ...step, error, error_kind: kind, ...(code === undefined ? {} : { error_code: code }), retryable: isRetryable(kind) },
        `step_failed:${node.id}`,
        spanId
      )
      return { tag: "failed", nodeId: node.id, error: `Node '${node.id}' failed: ${error}`, batch } satisfies Outcome
    }
    const outcome = result.right
    if (outcome._tag === "Wait") {
      const wait = outcome.wait
      batch.waits.push({ node_id: node.id, kind: wait.kind, key: wait.key, deadline: wait.deadline ?? null })
      state.waits.set(node.id, { node_id: node.id, kind: wait.kind, key: wait.key, resolution: undefined, resolved: false })
      if (wait.pauses) {
        batch.event("run_paused", { status: "paused", node_id: node.id }, `run_paused:${node.id}`, spanId)
        batch.run({ from: ["pending", "running"], to: "paused" })
        state.status = "paused"
      }
      return { tag: "waiting", nodeId: node.id, batch } satisfies Outcome
    }
    const output = outcome.result.output
    batch.step(stepRow("completed", { output, usage: outcome.result.usage }))
    if (node.type === "agent") batch.event("agent_completed", { ...step, output }, `agent_completed:${node.id}`, spanId)
    batch.event("step_completed", { ...step, status: "completed" }, `step_completed:${node.id}`, spanId)
    return { tag: "completed", nodeId: node.id, output, batch } satisfies Outcome
  })
