import { assert, layer } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { TestPlatformLive } from "../support/TestPlatform.js"

const api = "/api/v1/hcm-ticketing"

type Op =
  | { readonly op: "status"; readonly status: "OPEN" | "IN_PROGRESS" | "HOLD" | "CLOSED" }
  | { readonly op: "close" }
  | { readonly op: "assign"; readonly clear: boolean }
  | { readonly op: "move" }
  | { readonly op: "write" }

const opArb: FastCheck.Arbitrary<Op> = FastCheck.oneof(
  FastCheck.constantFrom("OPEN" as const, "IN_PROGRESS" as const, "HOLD" as const, "CLOSED" as const).map((status) => ({ op: "status" as const, status })),
  FastCheck.constant({ op: "close" as const }),
  FastCheck.boolean().map((clear) => ({ op: "assign" as const, clear })),
  FastCheck.constant({ op: "move" as const }),
  FastCheck.constant({ op: "write" as const })
)

/**
 * Random sequences of status changes, closes, assignments, moves and writes against the ticket
 * table of the document: the status endpoint takes OPEN, IN_PROGRESS and HOLD (CLOSED is 422),
 * close ends the ticket, anything after it is 409, a move keeps the status and clears the
 * assignee, assign with null clears it.
 */
layer(TestPlatformLive(), { excludeTestServices: true, timeout: "120 seconds" })("ticket status transitions", (it) => {
  it.effect("over random operation sequences every answer and every resulting state follows the table", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const me = (yield* http("GET", "/api/v1/auth/users/me", { token: admin })).body.user
      yield* http("PATCH", `/api/v1/auth/tenants/${me.tenant_id}/settings`, { token: admin, body: { user_groups_enabled: true, ticketing_enabled: true } })
      const groups: Array<string> = []
      for (const name of ["Alpha desk", "Beta desk"]) {
        const group = (yield* http("POST", "/api/v1/auth/groups", { token: admin, body: { name } })).body.id as string
        assert.strictEqual((yield* http("POST", `${api}/groups/${group}/queue`, { token: admin, body: { name } })).status, 201)
        groups.push(group)
      }
      const sequences = FastCheck.sample(FastCheck.array(opArb, { minLength: 1, maxLength: 10 }), { numRuns: 15, seed: 20261123 })
      for (const sequence of sequences) {
        let group = 0
        const ticket = (yield* http("POST", `${api}/groups/${groups[0]}/tickets`, { token: admin, body: { title: "t" } })).body
        let status = "OPEN"
        let assignee: string | null = null
        let closed = false
        for (const step of sequence) {
          const path = `${api}/groups/${groups[group]}/tickets/${ticket.id}`
          const r = step.op === "status"
            ? yield* http("POST", `${path}/status`, { token: admin, body: { status: step.status } })
            : step.op === "close"
            ? yield* http("POST", `${path}/close`, { token: admin, body: {} })
            : step.op === "assign"
            ? yield* http("POST", `${path}/assign`, { token: admin, body: { assignee_email: step.clear ? null : me.email } })
            : step.op === "move"
            ? yield* http("POST", `${path}/move`, { token: admin, body: { group_id: groups[1 - group] } })
            : yield* http("PATCH", path, { token: admin, body: { description: `d${Math.random()}` } })
          const label = `${JSON.stringify(sequence)} at ${JSON.stringify(step)}`
          if (closed) {
            assert.strictEqual(r.status, step.op === "status" && step.status === "CLOSED" ? 422 : 409, label)
            continue
          }
          if (step.op === "status" && step.status === "CLOSED") {
            assert.strictEqual(r.status, 422, label)
            continue
          }
          assert.strictEqual(r.status, 200, `${label}: ${r.text}`)
          if (step.op === "status") status = step.status
          if (step.op === "close") (closed = true, status = "CLOSED")
          if (step.op === "assign") assignee = step.clear ? null : me.email
          if (step.op === "move") (group = 1 - group, assignee = null)
          assert.strictEqual(r.body.status, status, label)
          assert.strictEqual(r.body.assignee_email, assignee, label)
          assert.strictEqual(r.body.group_id, groups[group], label)
        }
      }
    }))
})
