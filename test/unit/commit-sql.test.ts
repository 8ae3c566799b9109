import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { PreparedSql } from "../../platform/PreparedSql.js"
import { Batch } from "../../runtime/run/Batch.js"
import { commitAll, type CommitEntry } from "../../runtime/run/CommitSql.js"

const RUN = "0193a3b0-0000-7000-8000-000000000000"

/** The text and parameters commitAll sends for these entries. */
const sent = (entries: ReadonlyArray<CommitEntry>) => {
  const seen: Array<{ text: string; values: ReadonlyArray<unknown>; generic: boolean }> = []
  const record = (generic: boolean) => <A extends object>(text: string, values: ReadonlyArray<unknown>) =>
    Effect.sync(() => (seen.push({ text, values, generic }), [] as ReadonlyArray<A>))
  const sql: PreparedSql["Type"] = { query: record(false), queryGeneric: record(true) }
  Effect.runSync(commitAll(sql, entries))
  return seen[0]
}

const step = (status: "running" | "completed") => ({
  id: "0193a3b0-0000-7000-8000-000000000001",
  node_id: "a",
  node_type: "agent",
  node_name: null,
  status,
  attempt: 1,
  position: 0,
  started: status === "running",
  finished: status !== "running"
})

const entry = (batch: Batch, extra: Partial<CommitEntry> = {}): CommitEntry => ({
  run: { id: RUN, tenant_id: "0193a3b0-0000-7000-8000-00000000000f" },
  batch,
  firstSeq: 1,
  guarded: false,
  fence: undefined,
  ...extra
})

describe("the journal's commit statement", () => {
  it("a node's usual commit (its step row and events) names no table it does not write", () => {
    const { text, values } = sent([entry(new Batch().step(step("running")).event("step_started", { node_id: "a" }, "step_started:a", undefined))])
    for (const table of ["run_steps", "run_events"]) assert.include(text, `INSERT INTO ${table}`)
    for (const absent of ["UPDATE runs", "hitl_requests", "run_waits", "run_spans", "cluster_locks"]) assert.notInclude(text, absent)
    // Every parameter is used, numbered from 1.
    assert.strictEqual(values.length, 3)
    for (let i = 1; i <= values.length; i++) assert.include(text, `$${i}::`)
  })

  it("the parts come with their rows: a run transition, a lease, a cancellation and a wake-up", () => {
    const batch = new Batch().step(step("completed")).event("step_completed", { node_id: "a" }, "step_completed:a", undefined)
    batch.run({ from: ["running"], to: "failed" })
    batch.cancelHitl = true
    batch.wake.push("0193a3b0-0000-7000-8000-0000000000aa")
    const { text, values } = sent([entry(batch, { guarded: true, fence: { shardId: "runs:1", address: "runner-1", leaseSeconds: 15 } })])
    for (const part of ["UPDATE runs r", "cluster_locks", "UPDATE hitl_requests", "wake_seq = wake_seq + 1", "en.idx IN (SELECT idx FROM ru)"]) {
      assert.include(text, part)
    }
    assert.notInclude(text, "run_waits")
    // en, steps, events, wake and the two id ranges.
    assert.strictEqual(values.length, 8)
  })

  it("the same parts give the same text (prepared once per connection)", () => {
    const a = sent([entry(new Batch().step(step("running")))])
    const b = sent([entry(new Batch().step(step("completed"))), entry(new Batch().step(step("running")))])
    assert.strictEqual(a.text, b.text)
    assert.notStrictEqual(a.text, sent([entry(new Batch().event("token", {}, undefined, undefined))]).text)
  })

  it("a lone commit goes with its generic plan, a group's with its values (its id range spans other runs)", () => {
    const lone = new Batch().step(step("completed"))
    lone.run({ from: ["running"], to: "completed" })
    lone.wake.push("0193a3b0-0000-7000-8000-0000000000aa")
    assert.isTrue(sent([entry(lone)]).generic)
    const other = { id: "0193a3b0-0000-7000-8000-0000000000bb", tenant_id: "0193a3b0-0000-7000-8000-00000000000f" }
    assert.isFalse(sent([entry(lone), entry(new Batch().step(step("running")), { run: other })]).generic)
    const wakesTwo = new Batch().step(step("completed"))
    wakesTwo.wake.push("0193a3b0-0000-7000-8000-0000000000aa", "0193a3b0-0000-7000-8000-0000000000cc")
    assert.isFalse(sent([entry(wakesTwo)]).generic)
  })
})
