import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { Batch } from "../../runtime/run/Batch.js"
import { illegalSources, isTerminal, next, reaches, type RunStatus, RunStatuses, type RunTransition as RunEvent } from "../../schemas/RunLifecycle.js"

const events: ReadonlyArray<RunEvent> = ["start", "pause", "resume", "complete", "fail", "cancel", "skip"]

describe("run status state machine", () => {
  it.prop("over random event sequences: terminal states are final and every step follows the table", {
    seq: FastCheck.array(FastCheck.constantFrom(...events), { maxLength: 30 })
  }, ({ seq }) => {
    let status: RunStatus = "pending"
    let terminalAt: RunStatus | undefined
    for (const event of seq) {
      const to = next(status, event)
      if (terminalAt !== undefined) {
        assert.isUndefined(to, `${event} moved a ${status} run`)
        continue
      }
      if (to === undefined) continue
      // 01 "Run status": only these moves exist.
      const allowed: Record<string, ReadonlyArray<RunStatus>> = {
        pending: ["running", "failed", "cancelled", "skipped"],
        running: ["paused", "completed", "failed", "cancelled"],
        paused: ["running", "failed", "cancelled"]
      }
      assert.include(allowed[status] ?? [], to, `${status} -${event}-> ${to}`)
      status = to
      if (isTerminal(status)) terminalAt = status
    }
  })

  it("cancel is refused on completed, failed and cancelled runs; paused resumes to running", () => {
    for (const s of ["completed", "failed", "cancelled"] as const) assert.isUndefined(next(s, "cancel"))
    assert.strictEqual(next("paused", "resume"), "running")
    assert.strictEqual(next("paused", "cancel"), "cancelled")
    assert.isUndefined(next("paused", "complete"))
  })

  it.prop("one write may take several steps of the table at once, never one the table does not have", {
    seq: FastCheck.array(FastCheck.constantFrom(...events), { maxLength: 12 })
  }, ({ seq }) => {
    let status: RunStatus = "pending"
    const start = status
    for (const event of seq) {
      const to = next(status, event)
      if (to === undefined) continue
      status = to
      assert.isTrue(reaches(start, status) || start === status, `pending reaches ${status}`)
    }
  })

  it("the kernel's journal refuses a status write the table does not allow", () => {
    for (const from of RunStatuses) {
      for (const to of RunStatuses) {
        const write = () => new Batch().run({ from: [from], to })
        if (illegalSources([from], to).length === 0) write()
        else assert.throws(write, /may not move/, `${from} -> ${to}`)
      }
    }
    assert.throws(() => new Batch().run({ to: "completed" }), /may not move/, "a status write names where it moves from")
    assert.throws(() => new Batch().run({ from: ["completed"], to: "running" }))
    new Batch().run({ from: ["pending", "running"], to: "completed" })
  })
})
