import { Data, Effect, Layer, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { defineNode, done, ExtraNodeTypes, NodeRegistry, waitFor } from "../../runtime/nodes/NodeType.js"
import { TenantAdmission } from "../../runtime/run/Admission.js"
import { recordCancel } from "../../runtime/run/Cancel.js"
import { activate, StaleStart } from "../../runtime/run/Interpreter.js"
import { type Committed, Journal } from "../../runtime/run/Journal.js"
import { RunnableWorkflows, RunSpans } from "../../runtime/run/Ports.js"
import { RunEndHooks } from "../../runtime/run/RunEndHooks.js"
import type { RunEvents } from "../../runtime/run/RunEvents.js"
import type { Journaled, RunRecord } from "../../runtime/run/RunRecord.js"
import { Versions } from "../../runtime/run/Versions.js"
import { nodeBase } from "../../schemas/Dag.js"
import { WorkflowId } from "../../schemas/Ids.js"
import type { RunStatus } from "../../schemas/RunLifecycle.js"

/**
 * The run kernel alone (the interpreter, node runs, the run's end and its cancellation) over a
 * journal backend, with no cluster, HTTP or model: what the kernel's property suite drives. The
 * node type `probe` finishes, fails or waits for an answer as its config says.
 */

export const ProbeNodeSchema = Schema.Struct({
  ...nodeBase,
  type: Schema.Literal("probe"),
  probe_config: Schema.Struct({ behavior: Schema.Literal("done", "fail", "wait") })
})

export const ProbeNode = defineNode({
  type: "probe",
  schema: ProbeNodeSchema,
  failures: { PROBE_FAILED: "dependency" },
  make: (fail) =>
    Effect.succeed({
      execute: (_execution, node) =>
        node.probe_config.behavior === "done"
          ? Effect.succeed(done({ output: { done: node.id }, usage: {} }))
          : node.probe_config.behavior === "fail"
          ? Effect.fail(fail("PROBE_FAILED", `${node.id} failed`))
          : Effect.succeed(waitFor({ kind: "external", key: node.id, pauses: true })),
      resume: (_execution, node, resolution) => Effect.succeed(done({ output: { done: node.id, answer: resolution }, usage: {} }))
    })
})

/** What the suite needs of a journal besides the kernel's interface: what other modules write, and reads for the checks. */
export interface JournalBackend {
  readonly insertRun: (record: RunRecord) => Effect.Effect<void>
  readonly resolveWait: (runId: string, nodeId: string, resolution: unknown) => Effect.Effect<boolean>
  readonly answerHitl: (runId: string, nodeId: string, response: unknown) => Effect.Effect<boolean>
  readonly events: (runId: string) => Effect.Effect<ReadonlyArray<{ readonly seq: number; readonly type: string; readonly payload: Record<string, unknown> }>>
}

/** The process stopped: whatever the activation was doing ends here, and a restart loads the journal. */
export class Crash extends Data.TaggedError("Crash")<{}> {}

/** Commit number `at` crashes, before its write reaches the journal or just after. */
export interface CrashPoint {
  readonly at: number
  readonly after: boolean
}

/**
 * The journal with crashes at chosen commits and the run's status after each commit recorded (to
 * check every move against the lifecycle table).
 */
export const crashingJournal = (crashes: ReadonlyArray<CrashPoint>, statuses: Array<RunStatus>) =>
  Layer.effect(
    Journal,
    Effect.map(Journal, (journal) => {
      let count = 0
      const record = (c: Committed) => {
        if (c.status !== undefined && statuses.at(-1) !== c.status) statuses.push(c.status)
      }
      return {
        ...journal,
        commit: (run, batch, firstSeq, guarded) =>
          Effect.suspend(() => {
            count += 1
            const crash = crashes.find((c) => c.at === count)
            if (crash !== undefined && !crash.after) return Effect.die(new Crash())
            return journal.commit(run, batch, firstSeq, guarded).pipe(
              Effect.tap(record),
              Effect.tap(() => (crash !== undefined ? Effect.die(new Crash()) : Effect.void))
            )
          })
      }
    })
  )

/** Versions of the scenario's AI Employees, by id (version 1 each, fixed like a published one). */
export const workflowsLayer = (dags: ReadonlyMap<string, unknown>) =>
  Layer.succeed(RunnableWorkflows, {
    active: (_tenantId, workflowId) => Effect.succeed(dags.has(workflowId) ? { name: "Probe", version: 1 } : undefined),
    activeKept: (_tenantId, workflowId) => Effect.succeed(dags.has(workflowId) ? { name: "Probe", version: 1 } : undefined),
    forgetActive: () => Effect.void,
    version: (workflowId) => Effect.succeed(dags.has(workflowId) ? { dag: dags.get(workflowId), config: {}, fixed: true } : undefined)
  })

/** The kernel's services over `journal` (a Journal and RunEvents layer): node types, versions, no spans, no end hooks. */
export const kernelOver = <E, R>(journal: Layer.Layer<Journal | RunEvents, E, R>, dags: ReadonlyMap<string, unknown>) =>
  Layer.mergeAll(
    NodeRegistry.layer([ProbeNode]),
    Versions.layer.pipe(Layer.provide(workflowsLayer(dags))),
    RunSpans.none,
    RunEndHooks.none,
    TenantAdmission.none
  ).pipe(
    Layer.provide(Layer.succeed(ExtraNodeTypes, [ProbeNode])),
    Layer.provideMerge(journal)
  )

export const runRecord = (tenantId: string, workflowId: string): RunRecord => ({
  id: randomUUID(),
  tenant_id: tenantId,
  workflow_id: WorkflowId.make(workflowId),
  workflow_name: "Probe",
  version: 1,
  status: "pending",
  trigger_type: "api",
  is_dry_run: false,
  input_params: {},
  parent_run_id: null,
  parent_node_id: null,
  session_id: null,
  held: false,
  error: null,
  created_by: null,
  search_overrides: null
})

const controls = {
  takeWake: () => false,
  wake: () => Effect.void,
  startChild: () => Effect.die("the probe DAGs start no child runs")
}

/**
 * One activation as the run entity makes it, a crash ending it the way a stopped process does
 * (`crashed`: the recovery sweep would activate it again from its journal).
 */
export const activateOnce = (runId: string, fresh: RunRecord | undefined) =>
  Effect.scoped(activate(runId, controls, fresh)).pipe(
    Effect.catchAllDefect((defect) =>
      defect instanceof Crash ? Effect.succeed("crashed" as const) : defect instanceof StaleStart ? Effect.succeed("again" as const) : Effect.die(defect)
    )
  )

/** The run module's cancel after its activation stopped. */
export const cancelRun = (runId: string) =>
  recordCancel(runId, () => Effect.void).pipe(
    Effect.catchAllDefect((defect) => defect instanceof Crash ? Effect.succeed({ outcome: "crashed" as const }) : Effect.die(defect))
  )

export const load = (runId: string): Effect.Effect<Journaled | undefined, never, Journal> => Effect.flatMap(Journal, (j) => j.load(runId))
