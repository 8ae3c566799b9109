import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { acknowledgeOrder, makeGroupCommit } from "../../runtime/run/GroupCommit.js"

// Issue 37, fair service: a written group is acknowledged the least represented tenants' entries
// first, so that a quiet tenant's run resumes (and sends its next request) before a flood's.

interface Entry {
  readonly id: string
  readonly tenant: string
}

describe("group commit acknowledgement order", () => {
  it("puts a tenant's lone entry before a flood's, keeping arrival order within a tenant", () => {
    const entries = ["a1", "a2", "b1", "a3", "c1", "c2", "a4"].map((id) => ({ id, tenant: id[0] }))
    const order = acknowledgeOrder(entries, (e) => e.tenant).map((i) => entries[i].id)
    assert.deepStrictEqual(order, ["b1", "c1", "c2", "a1", "a2", "a3", "a4"])
    assert.deepStrictEqual(acknowledgeOrder(entries, undefined), [0, 1, 2, 3, 4, 5, 6])
    assert.deepStrictEqual(acknowledgeOrder(entries.filter((e) => e.tenant === "a"), (e) => e.tenant), [0, 1, 2, 3])
  })

  it.scoped("resumes the waiting fibers in that order", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const resumed: Array<string> = []
      const submit = yield* makeGroupCommit<Entry, string>({
        // The first entry is written alone and holds the writer until the gate opens, so the rest queue into one group.
        one: (entry) => Effect.as(entry.id === "a0" ? Deferred.await(gate) : Effect.void, entry.id),
        many: (entries) => Effect.succeed(entries.map((e) => e.id)),
        touches: (entry) => [entry.id],
        tenantOf: (entry) => entry.tenant,
        maxEntries: 64,
        writers: 1
      })
      const send = (id: string) => Effect.fork(Effect.flatMap(submit({ id, tenant: id[0] }), (row) => Effect.sync(() => resumed.push(row))))
      const first = yield* send("a0")
      yield* Effect.yieldNow()
      const rest = yield* Effect.forEach(["a1", "a2", "a3", "b1", "a4", "a5"], (id) => Effect.zipLeft(send(id), Effect.yieldNow()))
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll([first, ...rest])
      assert.deepStrictEqual(resumed, ["a0", "b1", "a1", "a2", "a3", "a4", "a5"])
    }))
})
