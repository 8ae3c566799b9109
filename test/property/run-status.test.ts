import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { isTerminal, next, type RunEvent, type RunStatus } from "../../runtime/RunStatus.js"

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
})
