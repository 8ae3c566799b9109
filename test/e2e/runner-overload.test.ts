import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { platformEnv, splitPlatform } from "../support/ProcessPlatform.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { migratedDatabase } from "../support/TestDatabase.js"
import { sharedBusEnv } from "../support/TestServices.js"
import { respondNode } from "../support/Workflows.js"

// Issue 37, point 2, in a split deployment: the gateway accepts the starts, a runner process runs
// them. A flood overloads the runner, not the gateway; the runner says so over the bus, and the
// gateway paces the flooding tenant's starts (429, busy) while another tenant's go through.

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

// Each of the flooding tenant's runs streams 40 KB through four agent steps: work for the runner.
const HEAVY = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(4, "0")} ${"x".repeat(2_000)} `)
const FLOODERS = 2

layer(ScriptedModel.layer, { excludeTestServices: true, timeout: "150 seconds" })("a runner's overload, as its gateway sees it", (it) => {
  it.scoped(
    "a ROLE=runners process late under one tenant's flood makes its gateway pace that tenant (429 busy), not the other; bp_runners_loop_lag shows it",
    () =>
      Effect.gen(function*() {
        const db = yield* migratedDatabase
        const model = yield* ScriptedModel
        model.setScript((r) => (JSON.stringify(r.messages).includes("tenant A") ? { text: "", chunks: HEAVY } : { text: "b" }))
        const common: Record<string, string> = {
          ...platformEnv("overload", db.url, model.baseUrl),
          ...sharedBusEnv(`bptest:${db.name}:`),
          OVERLOAD_LOOP_LAG_MS: "5"
        }
        const { gateway } = yield* splitPlatform(common)
        const api = gateway.api
        const login = (email: string, password: string) =>
          Effect.map(api("POST", "/api/v1/auth/login", { email, password }), (r) => r.body.access_token as string)
        const published = (token: string, nodes: ReadonlyArray<unknown>, edges: ReadonlyArray<unknown>) =>
          Effect.gen(function*() {
            const w = yield* api("POST", "/api/v1/workflow/workflows", { name: "Flow" }, token)
            yield* api("PATCH", `/api/v1/workflow/workflows/${w.body.id}`, { dag_definition: { nodes, edges } }, token)
            assert.strictEqual((yield* api("POST", `/api/v1/workflow/workflows/${w.body.id}/publish`, undefined, token)).status, 200)
            return w.body.id as string
          })
        const admin = yield* login("overload@admin.test", "overload-admin-password")
        const other = yield* api("POST", "/api/v1/auth/tenants", { name: "Quiet", slug: `quiet-${Date.now().toString(36)}` }, admin)
        const member = yield* api("POST", "/api/v1/auth/users", {
          email: `quiet.${Date.now().toString(36)}@example.test`,
          name: "Quiet",
          password: "password-123",
          role: "system_admin",
          tenant_id: other.body.id
        }, admin)
        assert.strictEqual(member.status, 201, member.text)
        const quietToken = yield* login(member.body.email, "password-123")
        const flood = yield* published(admin, ["a1", "a2", "a3", "a4"].map((id) => respondNode(id, "tenant A")), [
          { from: "a1", to: "a2" },
          { from: "a2", to: "a3" },
          { from: "a3", to: "a4" }
        ])
        const quiet = yield* published(quietToken, [respondNode("b", "tenant B")], [])
        const start = (token: string, id: string) => api("POST", `/api/v1/workflow/workflows/${id}/run`, { input_params: {} }, token)
        const lagOnGateway = Effect.map(api("GET", "/metrics"), (m) => Number(/^bp_runners_loop_lag(?:\{[^}]*\})? ([\d.e+-]+)$/m.exec(m.text)?.[1] ?? "0"))

        // The flood, two at a time, until the gateway paces it (or 40 s); after 3 s alone, the quiet
        // tenant starts a run every 500 ms, and the gateway's view of its runner is read every 100 ms.
        const accepted: Array<string> = []
        const quietRuns: Array<string> = []
        const busy: Array<{ readonly message: string; readonly retryAfter: number }> = []
        const until = Date.now() + 40_000
        const flooding = Effect.gen(function*() {
          while (busy.length === 0 && Date.now() < until) {
            const r = yield* start(admin, flood)
            if (r.status === 202) accepted.push(r.body.id)
            else if (r.status === 429) busy.push({ message: r.body.message, retryAfter: Number(r.headers.get("retry-after")) })
            else assert.fail(`unexpected ${r.status}: ${r.text}`)
          }
        })
        const quietly = Effect.gen(function*() {
          // The flood alone first: never paced, and the runner busy by the time the quiet tenant comes.
          yield* sleep(3_000)
          assert.strictEqual(busy.length, 0, "a tenant alone is not paced")
          while (busy.length === 0 && Date.now() < until) {
            const r = yield* start(quietToken, quiet)
            assert.strictEqual(r.status, 202, `the quiet tenant is not paced: ${r.text}`)
            quietRuns.push(r.body.id)
            yield* sleep(500)
          }
        })
        const reported: Array<number> = []
        const sampling = Effect.gen(function*() {
          while (busy.length === 0 && Date.now() < until) {
            reported.push(yield* lagOnGateway)
            yield* sleep(100)
          }
        })
        yield* Effect.all([...Array.from({ length: FLOODERS }, () => flooding), quietly, sampling], { concurrency: "unbounded", discard: true })
        const worstReported = Math.max(0, ...reported)
        assert.isAbove(busy.length, 0, `no start paced after ${accepted.length} runs`)
        assert.match(busy[0].message, /busy/)
        assert.isAtLeast(busy[0].retryAfter, 1)
        assert.isAbove(worstReported, 5, `the runner's lateness reached the gateway (reported: ${reported.join(",")})`)

        // Everything accepted runs to its end.
        for (const [token, ids] of [[admin, accepted], [quietToken, quietRuns]] as const) {
          for (const id of ids) {
            let status = ""
            for (let i = 0; i < 1200 && status !== "completed" && status !== "failed"; i++) {
              status = (yield* api("GET", `/api/v1/workflow/runs/${id}`, undefined, token)).body.status
              if (status !== "completed" && status !== "failed") yield* sleep(100)
            }
            assert.strictEqual(status, "completed", id)
          }
        }
      }),
    145_000
  )
})
