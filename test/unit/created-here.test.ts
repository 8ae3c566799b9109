import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createdHere, type CreatedRun, type RunModule } from "../../runtime/run/RunModule.js"
import type { RunStatus } from "../../schemas/RunLifecycle.js"

/*
 * A start that replays an earlier answer (the same Idempotency-Key) hands that answer's run to the
 * kernel only while it is still pending: the first request died before it did. A run that went on
 * is left alone; handing it over cost an activation and a read of its whole journal per replay.
 */

const modulesWith = (status: RunStatus | undefined) => {
  const calls: Array<string> = []
  const modules = {
    statuses: (ids: ReadonlyArray<string>) => Effect.succeed(new Map(status === undefined ? [] : ids.map((id) => [id, status]))),
    launch: (id: string) => Effect.sync(() => void calls.push(`launch ${id}`)),
    launchCreated: (run: CreatedRun) => Effect.sync(() => void calls.push(`launchCreated ${run.id}`))
  } as unknown as RunModule["Type"]
  return { calls, modules }
}

const run = { id: "r1" } as unknown as CreatedRun

describe("handing a started run to the kernel", () => {
  it.effect("the run this request created goes with its record", () =>
    Effect.gen(function*() {
      const { calls, modules } = modulesWith("pending")
      const created = createdHere()
      yield* created.keep(Effect.succeed(run))
      yield* created.launch(modules, "r1")
      assert.deepStrictEqual(calls, ["launchCreated r1"])
    }))

  it.effect("a replayed run still pending is handed over; one that went on, or is gone, is not", () =>
    Effect.gen(function*() {
      for (const [status, expected] of [["pending", ["launch r1"]], ["running", []], ["completed", []], ["cancelled", []], [undefined, []]] as const) {
        const { calls, modules } = modulesWith(status)
        yield* createdHere().launch(modules, "r1")
        assert.deepStrictEqual(calls, [...expected], String(status))
      }
    }))
})
