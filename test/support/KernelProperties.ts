import { assert } from "@effect/vitest"
import { type Context, Effect, FastCheck, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import type { Journal } from "../../runtime/run/Journal.js"
import type { RunEvents } from "../../runtime/run/RunEvents.js"
import type { RunRecord } from "../../runtime/run/RunRecord.js"
import { finalEventOf, isFinalEvent, isTerminal, reaches, type RunStatus, RunStreamEvent } from "../../schemas/RunLifecycle.js"
import { activateOnce, cancelRun, crashingJournal, type JournalBackend, kernelOver, load, runRecord } from "./KernelHarness.js"

/*
 * The kernel's property suite, for any journal behind the Journal interface (in memory and
 * PostgreSQL run the same one). Random DAGs of probe nodes (finish, fail, wait for an answer;
 * some behind an approval), crashes before or after random commits, answers, approvals and
 * rejections, and cancels at random points. At the end:
 *  1. the run has ended (completed, failed or cancelled), and every status it took was reached
 *     by a move the lifecycle table allows;
 *  2. its events have increasing numbers, each decodes as a RunStreamEvent, and exactly one is
 *     final: the last, agreeing with the status;
 *  3. no step is left running and no HITL request open; a node's step_started and step_completed are written once, whatever the crashes,
 *     and its output is what the node computes; a completed run has every node completed or
 *     skipped; a failed one failed at a failing node.
 */

export const Scenario = FastCheck.record({
  nodes: FastCheck.array(FastCheck.record({ behavior: FastCheck.constantFrom("done", "done", "fail", "wait"), gated: FastCheck.boolean() }), {
    minLength: 1,
    maxLength: 5
  }),
  edges: FastCheck.array(FastCheck.tuple(FastCheck.nat(4), FastCheck.nat(4)), { maxLength: 6 }),
  crashes: FastCheck.array(FastCheck.record({ at: FastCheck.integer({ min: 1, max: 14 }), after: FastCheck.boolean() }), { maxLength: 3 }),
  approvals: FastCheck.array(FastCheck.boolean(), { minLength: 6, maxLength: 6 }),
  cancelAt: FastCheck.option(FastCheck.integer({ min: 0, max: 3 }), { nil: undefined })
})
export type Scenario = typeof Scenario extends FastCheck.Arbitrary<infer A> ? A : never

const dagOf = (s: Scenario) => ({
  nodes: s.nodes.map((n, i) => ({
    id: `n${i}`,
    type: "probe",
    probe_config: { behavior: n.behavior },
    ...(n.gated ? { hitl: { type: "approval", prompt: "Go on?", assignee: { role: "builder" } } } : {})
  })),
  edges: [...new Set(s.edges.filter(([a, b]) => a < b && b < s.nodes.length).map(([a, b]) => `${a}>${b}`))].map((e) => {
    const [a, b] = e.split(">")
    return { from: `n${a}`, to: `n${b}` }
  })
})

const decodeEvent = Schema.decodeUnknownEither(RunStreamEvent)

/** Drives one scenario to its end: activations (crashing where it says), then answers and cancels between them. */
const play = (backend: JournalBackend, base: Context.Context<Journal | RunEvents>, s: Scenario, tenantId: string) =>
  Effect.gen(function*() {
    const workflowId = randomUUID()
    const dag = dagOf(s)
    const record: RunRecord = runRecord(tenantId, workflowId)
    yield* backend.insertRun(record)
    const statuses: Array<RunStatus> = ["pending"]
    const journal = Layer.succeedContext(base)
    const layer = kernelOver(Layer.merge(journal, crashingJournal(s.crashes, statuses).pipe(Layer.provide(journal))), new Map([[workflowId, dag]]))
    return yield* Effect.gen(function*() {
      let fresh: RunRecord | undefined = record
      let crashed = 0
      let idle = 0
      let approval = 0
      for (let turn = 0; turn < 60; turn++) {
        const result = yield* activateOnce(record.id, fresh)
        fresh = undefined
        if (result === "crashed") crashed++
        if (result !== "idle") continue
        const loaded = yield* load(record.id)
        if (loaded === undefined || isTerminal(loaded.run.status)) break
        if (s.cancelAt === idle++) {
          yield* cancelRun(record.id)
          continue
        }
        const request = loaded.hitl.find((h) => h.status === "pending")
        if (request !== undefined) {
          yield* backend.answerHitl(record.id, request.node_id, { approved: s.approvals[approval++ % s.approvals.length] })
          continue
        }
        const wait = loaded.waits.find((w) => !w.resolved)
        if (wait === undefined) break
        yield* backend.resolveWait(record.id, wait.node_id, "yes")
      }
      return { loaded: yield* load(record.id), events: yield* backend.events(record.id), statuses, dag, crashed }
    }).pipe(Effect.provide(layer))
  })

const check = (s: Scenario, outcome: Effect.Effect.Success<ReturnType<typeof play>>) => {
  const { dag, events, loaded, statuses } = outcome
  assert.isDefined(loaded)
  const status = loaded.run.status
  assert.include(["completed", "failed", "cancelled"], status, "the run ended")
  statuses.forEach((to, i) => {
    if (i > 0) assert.isTrue(reaches(statuses[i - 1], to), `${statuses[i - 1]} -> ${to}`)
  })
  assert.strictEqual(statuses.at(-1), status)

  events.forEach((e, i) => {
    if (i > 0) assert.isAbove(e.seq, events[i - 1].seq)
    assert.isTrue(decodeEvent({ type: e.type, run_id: loaded.run.id, ...e.payload })._tag === "Right", `${e.type} decodes: ${JSON.stringify(e.payload)}`)
  })
  const finals = events.filter((e) => isFinalEvent(e.type))
  assert.strictEqual(finals.length, 1, events.map((e) => e.type).join(","))
  assert.strictEqual(events.at(-1)?.type, finalEventOf(status as "completed" | "failed" | "cancelled"))

  const steps = loaded.steps
  assert.isFalse(steps.some((st) => st.status === "running"), "no step left running")
  assert.isFalse(loaded.hitl.some((h) => h.status === "pending" || h.status === "claimed"), "no HITL request left open")
  const behavior = (nodeId: string) => s.nodes[Number(nodeId.slice(1))].behavior
  for (const st of steps) {
    // A node run again after a crash (or resumed after a wait) starts once on the stream: the kernel keeps one event per key and run.
    assert.isAtMost(events.filter((e) => e.type === "step_started" && e.payload.node_id === st.node_id).length, 1, `one step_started for ${st.node_id}`)
  }
  for (const st of steps.filter((x) => x.status === "completed")) {
    assert.strictEqual(events.filter((e) => e.type === "step_completed" && e.payload.node_id === st.node_id).length, 1, `one step_completed for ${st.node_id}`)
    assert.notStrictEqual(behavior(st.node_id), "fail")
    assert.deepStrictEqual(st.output, behavior(st.node_id) === "wait" ? { done: st.node_id, answer: "yes" } : { done: st.node_id })
  }
  if (status === "completed") {
    for (const node of dag.nodes) {
      const st = steps.find((x) => x.node_id === node.id)
      assert.include(["completed", "skipped"], st?.status, `${node.id} in a completed run`)
    }
  }
  if (status === "failed") {
    const failed = steps.filter((x) => x.status === "failed")
    assert.strictEqual(failed.length, 1, JSON.stringify(steps))
    assert.strictEqual(behavior(failed[0].node_id), "fail")
  }
}

/** The suite over `backend`, whose Journal and RunEvents are in the context, `runs` scenarios. */
export const kernelProperties = (backend: JournalBackend, tenantId: string, runs: number) =>
  Effect.gen(function*() {
    const base = yield* Effect.context<Journal | RunEvents>()
    let crashes = 0
    yield* Effect.promise(() =>
      FastCheck.assert(
        FastCheck.asyncProperty(Scenario, async (s) => {
          const outcome = await Effect.runPromise(play(backend, base, s, tenantId))
          crashes += outcome.crashed
          check(s, outcome)
        }),
        { numRuns: runs }
      )
    )
    // The crashes happened (an activation ended by one and was taken up again from the journal).
    assert.isAbove(crashes, runs / 10)
    return Option.none()
  })
