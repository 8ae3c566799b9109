import { assert, layer } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { adminToken } from "../support/Fixtures.js"
import { http } from "../support/Http.js"
import { TestPlatformLive } from "../support/TestPlatform.js"
import { createWorkflow, getWorkflow, LLM_ENV, publish, saveDag, simpleDag } from "../support/Workflows.js"

type Op =
  | { readonly kind: "save"; readonly text: string }
  | { readonly kind: "publish" }
  | { readonly kind: "revert"; readonly pick: number }
  | { readonly kind: "rename"; readonly pick: number; readonly name: string }
  | { readonly kind: "delete"; readonly pick: number }

const op: FastCheck.Arbitrary<Op> = FastCheck.oneof(
  FastCheck.record({ kind: FastCheck.constant("save" as const), text: FastCheck.constantFrom("a", "b", "c") }),
  FastCheck.record({ kind: FastCheck.constant("publish" as const) }),
  FastCheck.record({ kind: FastCheck.constant("revert" as const), pick: FastCheck.nat(20) }),
  FastCheck.record({ kind: FastCheck.constant("rename" as const), pick: FastCheck.nat(20), name: FastCheck.constantFrom("x", "y", "z") }),
  FastCheck.record({ kind: FastCheck.constant("delete" as const), pick: FastCheck.nat(20) })
)

interface Row {
  readonly number: number
  readonly active: boolean
  readonly published_at?: string
}

layer(TestPlatformLive({ redis: false, env: LLM_ENV }), { excludeTestServices: true, timeout: "180 seconds" })(
  "version lifecycle",
  (it) => {
    it.effect.prop(
      "latest_version only grows, numbers are never reused, at most one active version, never a draft, never deleted",
      { ops: FastCheck.array(op, { minLength: 1, maxLength: 12 }) },
      ({ ops }) =>
        Effect.gen(function*() {
          const token = yield* adminToken
          const w = yield* createWorkflow(token)
          yield* saveDag(token, w.id, simpleDag("start"))
          let latest = 2
          const everSeen = new Set<number>([1, 2])
          const deleted = new Set<number>()
          for (const step of ops) {
            const history = (yield* http("GET", `/api/v1/workflow/workflows/${w.id}/versions?page_size=100`, { token })).body
              .items as Array<Row>
            // With every version deleted there is nothing to pick: only save and publish apply.
            if (history.length === 0 && "pick" in step) continue
            const target = history.length === 0 ? 0 : history[("pick" in step ? step.pick : 0) % history.length].number
            const activeBefore = history.find((v) => v.active)?.number
            switch (step.kind) {
              case "save":
                assert.strictEqual((yield* saveDag(token, w.id, simpleDag(step.text))).status, 200)
                break
              case "publish": {
                // A revert to the empty first version leaves a DAG that cannot be published.
                const r = yield* publish(token, w.id)
                assert.include([200, 422], r.status)
                if (r.status === 422) {
                  assert.strictEqual((yield* getWorkflow(token, w.id)).active_version, activeBefore)
                }
                break
              }
              case "revert":
                assert.strictEqual((yield* http("POST", `/api/v1/ai-employees/${w.id}/versions/${target}/revert`, { token })).status, 200)
                break
              case "rename": {
                const r = yield* http("PATCH", `/api/v1/ai-employees/${w.id}/versions/${target}`, { token, body: { name: step.name } })
                assert.include([200, 409], r.status)
                break
              }
              case "delete": {
                const r = yield* http("DELETE", `/api/v1/ai-employees/${w.id}/versions/${target}`, { token })
                if (target === activeBefore) assert.strictEqual(r.status, 409)
                else if (r.status === 204) deleted.add(target)
                break
              }
            }
            const wf = yield* getWorkflow(token, w.id)
            assert.isAtLeast(wf.latest_version, latest)
            latest = wf.latest_version
            const after = (yield* http("GET", `/api/v1/workflow/workflows/${w.id}/versions?page_size=100`, { token })).body
              .items as Array<Row>
            const active = after.filter((v) => v.active)
            assert.isAtMost(active.length, 1)
            for (const v of active) assert.isString(v.published_at, "a draft is never active")
            if (activeBefore !== undefined) assert.isDefined(after.find((v) => v.number === activeBefore) ?? active[0])
            assert.strictEqual(wf.active_version, active[0]?.number)
            for (const v of after) {
              assert.isFalse(deleted.has(v.number), `number ${v.number} was reused`)
              everSeen.add(v.number)
            }
            assert.isAtMost(Math.max(...everSeen), latest)
          }
        }),
      { fastCheck: { numRuns: 25 } }
    )
  }
)
