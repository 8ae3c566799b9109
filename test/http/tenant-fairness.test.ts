import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive } from "../support/RunPlatform.js"
import { readStreamUntil, startRun, waitForStatus } from "../support/Runs.js"
import { heldReply, ScriptedModel } from "../support/ScriptedModel.js"
import { respondNode } from "../support/Workflows.js"

// Issue 37, point 2: a tenant's runs in flight are limited; the rest wait in pending, visibly,
// and start in arrival order, while another tenant's runs start at once. Past the runs kept
// waiting in memory (2 here) a run is parked: only its id stays until a slot frees.
layer(RunPlatformLive({ TENANT_MAX_RUNS_IN_FLIGHT: "2", TENANT_MAX_RUNS_WAITING: "2" }), { excludeTestServices: true, timeout: "90 seconds" })(
  "tenant fairness",
  (it) => {
    it.effect("runs over the tenant's limit wait in pending (run_queued) or parked and start in order; another tenant is not held up; only an env_admin sets a limit", () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const model = yield* ScriptedModel
        // The tenant's first two runs are held at the model; the others answer at once.
        const held = heldReply()
        let calls = 0
        model.setScript((r) => {
          if (JSON.stringify(r.messages).includes("tenant B")) return { text: "b" }
          return calls++ < 2 ? { hold: held.promise, text: "a" } : { text: "a" }
        })
        const flooded = yield* publishedWorkflow(admin, { nodes: [respondNode("a", "tenant A")] })
        const runs: Array<string> = []
        for (let i = 0; i < 5; i++) runs.push((yield* startRun(admin, flooded, {})).body.id as string)
        yield* eventually(Effect.sync(() => (model.inFlight() === 2 ? true : undefined)), "two of the tenant's runs at the model")
        yield* Effect.sleep("300 millis")
        assert.strictEqual(model.inFlight(), 2, "no third run of the tenant started")
        for (const id of runs.slice(2)) {
          const queued = yield* readStreamUntil(admin, id, (e) => e.data.type === "run_queued", () => true)
          assert.deepInclude(queued.events.find((e) => e.data.type === "run_queued")?.data, { status: "pending", reason: "tenant_runs_in_flight", limit: 2 })
          assert.strictEqual((yield* http("GET", `/api/v1/workflow/runs/${id}`, { token: admin })).body.status, "pending")
        }
        // Two wait in memory, the fifth is parked.
        const queued = yield* http("GET", "/metrics")
        assert.match(queued.text, /bp_runs_queued\{[^}]*state="waiting"[^}]*\} 2\b/)
        assert.match(queued.text, /bp_runs_queued\{[^}]*state="parked"[^}]*\} 1\b/)

        // Another tenant's run starts and completes while the first tenant's wait.
        const other = yield* createTenant(admin, `fair-${Date.now().toString(36)}`)
        const otherAdmin = yield* createMember(admin, "system_admin", { tenantId: other.id })
        const otherToken = yield* loginToken(otherAdmin.email, otherAdmin.password)
        const otherFlow = yield* publishedWorkflow(otherToken, { nodes: [respondNode("b", "tenant B")] })
        const otherRun = yield* startRun(otherToken, otherFlow, {})
        assert.strictEqual((yield* waitForStatus(otherToken, otherRun.body.id, ["completed", "failed"])).status, "completed")
        assert.strictEqual(model.inFlight(), 2)

        // Waiting in the line is quiet, not lost: past the recovery sweep's 5 s (and its next pass)
        // none of them is handed over again.
        yield* Effect.sleep("11 seconds")
        const metrics = yield* http("GET", "/metrics")
        assert.notMatch(metrics.text, /bp_runs_recovered_total\{[^}]*reason="quiet"/)

        // A tenant's share is the operator's to set: its own admin may not; the env_admin may.
        const me = (yield* http("GET", "/api/v1/auth/users/me", { token: admin })).body.user.tenant_id as string
        const tenantAdmin = yield* createMember(admin, "system_admin")
        const tenantAdminToken = yield* loginToken(tenantAdmin.email, tenantAdmin.password)
        const path = `/api/v1/auth/tenants/${me}/settings`
        assert.strictEqual((yield* http("PATCH", path, { token: tenantAdminToken, body: { max_runs_in_flight: 100 } })).status, 403)
        assert.strictEqual((yield* http("PATCH", path, { token: admin, body: { max_runs_in_flight: 0 } })).status, 400)
        const set = yield* http("PATCH", path, { token: admin, body: { max_runs_in_flight: 3 } })
        assert.strictEqual(set.status, 200)
        assert.strictEqual(set.body.settings.max_runs_in_flight, 3)

        // The raised limit reaches the runs already waiting (within the line's next look, seconds):
        // the third slot takes them one after another, the parked one included, while the first two
        // still hold theirs.
        const waited = []
        for (const id of runs.slice(2)) waited.push(yield* waitForStatus(admin, id, ["completed", "failed"]))
        assert.strictEqual(model.inFlight(), 2)
        held.release()
        const first = []
        for (const id of runs.slice(0, 2)) first.push(yield* waitForStatus(admin, id, ["completed", "failed"]))
        const ended = [...first, ...waited]
        assert.deepStrictEqual(ended.map((r) => r.status), ["completed", "completed", "completed", "completed", "completed"])
        const drained = yield* http("GET", "/metrics")
        assert.match(drained.text, /bp_runs_queued\{[^}]*state="parked"[^}]*\} 0\b/)
        assert.match(drained.text, /bp_runs_queued\{[^}]*state="waiting"[^}]*\} 0\b/)
        // The waiting runs started in the order they were started in, each after the one before it ended.
        for (let i = 1; i < waited.length; i++) {
          assert.isTrue(Date.parse(waited[i]?.started_at) >= Date.parse(waited[i - 1]?.finished_at), JSON.stringify(waited))
        }
      }))
  }
)

layer(RunPlatformLive({ TENANT_MAX_RUN_STARTS_PER_SECOND: "3" }), { excludeTestServices: true, timeout: "90 seconds" })("tenant run-start rate", (it) => {
  it.effect("past the tenant's max_run_starts_per_second a start is refused with 429 and Retry-After, a second later one more is allowed; the configured default applies to tenants without their own (pacing itself: bus-and-limits.test.ts)", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      model.setScript(() => ({ text: "ok" }))
      const tenantWith = (slug: string, perSecond: number) =>
        Effect.gen(function*() {
          const tenant = yield* createTenant(admin, `${slug}-${Date.now().toString(36)}`)
          const set = yield* http("PATCH", `/api/v1/auth/tenants/${tenant.id}/settings`, { token: admin, body: { max_run_starts_per_second: perSecond } })
          assert.strictEqual(set.status, 200)
          const member = yield* createMember(admin, "system_admin", { tenantId: tenant.id })
          const token = yield* loginToken(member.email, member.password)
          return { token, flow: yield* publishedWorkflow(token, { nodes: [respondNode("a")] }) }
        })
      const start = (token: string, flow: string) => http("POST", `/api/v1/workflow/workflows/${flow}/run`, { token, body: { input_params: {} } })

      const limited = yield* tenantWith("rate", 1)
      const answers = yield* Effect.forEach([1, 2, 3, 4], () => start(limited.token, limited.flow), { concurrency: "unbounded" })
      const refused = answers.filter((r) => r.status === 429)
      assert.strictEqual(answers.filter((r) => r.status === 202).length, 1, answers.map((r) => r.status).join(","))
      assert.strictEqual(refused.length, 3)
      assert.strictEqual(refused[0]?.body.code, "RATE_LIMITED")
      assert.strictEqual(Number(refused[0]?.headers.get("retry-after")), 1)
      // A second later one start is allowed again, and only one: the allowance comes back a start at a time.
      // (Sent together, so that a slow machine cannot stretch them over the next token's arrival.)
      const statuses = (answers: ReadonlyArray<{ readonly status: number }>) => answers.map((r) => r.status).sort().join(",")
      yield* Effect.sleep("1100 millis")
      assert.strictEqual(statuses(yield* Effect.forEach([1, 2, 3], () => start(limited.token, limited.flow), { concurrency: "unbounded" })), "202,429,429")

      // The admin's own tenant has no setting of its own: the platform's default of 3 applies.
      const own = yield* publishedWorkflow(admin, { nodes: [respondNode("a")] })
      assert.strictEqual(statuses(yield* Effect.forEach([1, 2, 3, 4], () => startRun(admin, own, {}), { concurrency: "unbounded" })), "202,202,202,429")
      // A tenant's own setting above the default is its own.
      const generous = yield* tenantWith("generous", 50)
      for (let i = 0; i < 6; i++) assert.strictEqual((yield* start(generous.token, generous.flow)).status, 202)
    }))
})

layer(RunPlatformLive({ TENANT_MAX_MODEL_CALLS_IN_FLIGHT: "1" }), { excludeTestServices: true, timeout: "90 seconds" })("tenant model calls", (it) => {
  it.effect("a tenant's model calls in flight are limited: its runs take turns at the provider, another tenant's call goes at once", () =>
    Effect.gen(function*() {
      const admin = yield* adminToken
      const model = yield* ScriptedModel
      const held = heldReply()
      model.setScript((r) => (JSON.stringify(r.messages).includes("tenant B") ? { text: "b" } : { hold: held.promise, text: "a" }))
      const flow = yield* publishedWorkflow(admin, { nodes: [respondNode("a", "tenant A")] })
      const runs: Array<string> = []
      for (let i = 0; i < 3; i++) runs.push((yield* startRun(admin, flow, {})).body.id as string)
      yield* eventually(Effect.sync(() => (model.inFlight() === 1 ? true : undefined)), "one call at the model")
      yield* Effect.sleep("300 millis")
      assert.strictEqual(model.inFlight(), 1, "the tenant's other calls wait their turn")
      // The runs themselves are running (only their model calls wait).
      for (const id of runs) assert.strictEqual((yield* http("GET", `/api/v1/workflow/runs/${id}`, { token: admin })).body.status, "running")

      const other = yield* createTenant(admin, `calls-${Date.now().toString(36)}`)
      const otherAdmin = yield* createMember(admin, "system_admin", { tenantId: other.id })
      const otherToken = yield* loginToken(otherAdmin.email, otherAdmin.password)
      const otherFlow = yield* publishedWorkflow(otherToken, { nodes: [respondNode("b", "tenant B")] })
      const otherRun = yield* startRun(otherToken, otherFlow, {})
      assert.strictEqual((yield* waitForStatus(otherToken, otherRun.body.id, ["completed", "failed"])).status, "completed")

      held.release()
      for (const id of runs) assert.strictEqual((yield* waitForStatus(admin, id, ["completed", "failed"])).status, "completed")
    }))
})
