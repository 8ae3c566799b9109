import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminToken, createMember, createTenant } from "../support/Fixtures.js"
import { http, loginToken } from "../support/Http.js"
import { eventually, publishedWorkflow, RunPlatformLive, sleep } from "../support/RunPlatform.js"
import { readStream, startRun, waitForStatus } from "../support/Runs.js"
import { ScriptedModel } from "../support/ScriptedModel.js"
import { withPlatformDb } from "../support/TestPlatform.js"
import { respondNode, simpleDag } from "../support/Workflows.js"

// Issue 38, point 2: retention per tenant. The sweep looks every second here; runs are aged by
// moving their end (and start) back in the database.

const withDb = withPlatformDb

const age = (runIds: ReadonlyArray<string>, days: number) =>
  withDb((c) =>
    c.query(
      `UPDATE runs SET created_at = created_at - make_interval(days => $2), finished_at = finished_at - make_interval(days => $2) WHERE id = ANY($1)`,
      [runIds, days]
    )
  )

const settings = (token: string, tenantId: string, body: Record<string, unknown>) => http("PATCH", `/api/v1/auth/tenants/${tenantId}/settings`, { token, body })

const completedRun = (token: string, workflowId: string) =>
  Effect.gen(function*() {
    const run = yield* startRun(token, workflowId, { message: "hi" })
    assert.strictEqual(run.status, 202, run.text)
    yield* waitForStatus(token, run.body.id, ["completed"])
    return run.body.id as string
  })

const status = (token: string, runId: string) => http("GET", `/api/v1/workflow/runs/${runId}`, { token }).pipe(Effect.map((r) => r.status))

const gone = (token: string, runId: string) =>
  eventually(status(token, runId).pipe(Effect.map((s) => (s === 404 ? true : undefined))), `run ${runId} to expire`)

layer(RunPlatformLive({ RETENTION_SWEEP_SECONDS: "1", RUN_RETENTION_MAX_DAYS: "90" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "retention",
  (it) => {
    it.effect("a tenant's admins set its retention within the platform's maximum; others may not; GET /retention shows it", () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const me = (yield* http("GET", "/api/v1/auth/users/me", { token: admin })).body.user
        const policy = yield* http("GET", "/api/v1/workflow/retention", { token: admin })
        assert.deepStrictEqual(policy.body, {
          run_retention_days: 30,
          run_detail_retention_days: null,
          max_run_retention_days: 90,
          held_workflows: 0,
          held_runs: 0
        })
        const zero = yield* settings(admin, me.tenant_id, { run_retention_days: 0 })
        assert.strictEqual(zero.status, 400)
        assert.strictEqual(zero.body.code, "VALIDATION_ERROR")
        assert.strictEqual(zero.body.message, "run_retention_days: must be a whole number from 1 to 36500")
        const tooLong = yield* settings(admin, me.tenant_id, { run_retention_days: 91 })
        assert.strictEqual(tooLong.status, 422, tooLong.text)
        assert.strictEqual(tooLong.body.code, "RETENTION_TOO_LONG")
        const detailTooLong = yield* settings(admin, me.tenant_id, { run_detail_retention_days: 31 })
        assert.strictEqual(detailTooLong.body.code, "RETENTION_TOO_LONG")
        const builder = yield* createMember(admin, "builder")
        const builderToken = yield* loginToken(builder.email, builder.password)
        assert.strictEqual((yield* settings(builderToken, me.tenant_id, { run_retention_days: 10 })).status, 403)
        const ok = yield* settings(admin, me.tenant_id, { run_retention_days: 60, run_detail_retention_days: 45 })
        assert.strictEqual(ok.status, 200, ok.text)
        assert.strictEqual(ok.body.settings.run_retention_days, 60)
        const after = yield* http("GET", "/api/v1/workflow/retention", { token: builderToken })
        assert.strictEqual(after.body.run_retention_days, 60)
        assert.strictEqual(after.body.run_detail_retention_days, 45)
        assert.strictEqual((yield* settings(admin, me.tenant_id, { run_retention_days: 30, run_detail_retention_days: null })).status, 200)
      }))

    it.effect("expiry removes finished runs past the retention, and nothing held, paused, recent or of another tenant", () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const model = yield* ScriptedModel
        model.setScript(() => ({ text: "done" }))
        const me = (yield* http("GET", "/api/v1/auth/users/me", { token: admin })).body.user
        // Another tenant, with the default 30 days: its aged run stays.
        const other = yield* createTenant(admin, `ret-${Date.now().toString(36)}`)
        const otherAdmin = yield* createMember(admin, "system_admin", { tenantId: other.id })
        const otherToken = yield* loginToken(otherAdmin.email, otherAdmin.password, other.slug)
        const otherRun = yield* completedRun(otherToken, yield* publishedWorkflow(otherToken, simpleDag()))

        const plain = yield* publishedWorkflow(admin, simpleDag())
        const heldEmployee = yield* publishedWorkflow(admin, simpleDag())
        const approval = yield* publishedWorkflow(admin, {
          nodes: [{ ...respondNode("ask"), hitl: { type: "approval", prompt: "Go?", assignee: { role: "builder" } } }]
        })
        const expired = yield* completedRun(admin, plain)
        const heldRun = yield* completedRun(admin, plain)
        const recent = yield* completedRun(admin, plain)
        const ofHeldEmployee = yield* completedRun(admin, heldEmployee)
        const paused = (yield* startRun(admin, approval, {})).body.id as string
        yield* waitForStatus(admin, paused, ["paused"])

        const hold = yield* http("PUT", `/api/v1/workflow/runs/${heldRun}/retention-hold`, { token: admin })
        assert.deepStrictEqual(hold.body, { resource_type: "run", id: heldRun, retention_hold: true })
        assert.isTrue((yield* http("GET", `/api/v1/workflow/runs/${heldRun}`, { token: admin })).body.retention_hold)
        assert.strictEqual((yield* http("PUT", `/api/v1/workflow/workflows/${heldEmployee}/retention-hold`, { token: admin })).status, 200)
        const builder = yield* createMember(admin, "builder")
        const builderToken = yield* loginToken(builder.email, builder.password)
        assert.strictEqual((yield* http("PUT", `/api/v1/workflow/runs/${recent}/retention-hold`, { token: builderToken })).status, 403)
        assert.strictEqual((yield* http("PUT", `/api/v1/workflow/runs/${otherRun}/retention-hold`, { token: admin })).status, 404)

        assert.strictEqual((yield* settings(admin, me.tenant_id, { run_retention_days: 5 })).status, 200)
        yield* age([expired, heldRun, ofHeldEmployee, paused, otherRun], 10)
        yield* age([recent], 2)
        yield* gone(admin, expired)
        const stream = yield* readStream(admin, expired)
        assert.strictEqual(stream.status, 404)
        // Two more sweeps: what stays, stays.
        yield* sleep(2500)
        assert.strictEqual(yield* status(admin, heldRun), 200)
        assert.strictEqual(yield* status(admin, ofHeldEmployee), 200)
        assert.strictEqual(yield* status(admin, recent), 200)
        assert.strictEqual(yield* status(admin, paused), 200)
        assert.strictEqual(yield* status(otherToken, otherRun), 200)
        const audit = yield* http("GET", "/api/v1/auth/audit-events?page_size=100", { token: admin })
        const expiry = audit.body.items.find((e: { action: string }) => e.action === "retention.expired")
        assert.isDefined(expiry, "the expiry is in the audit log")
        assert.isAtLeast(expiry.details.runs, 1)
        assert.strictEqual(expiry.details.run_retention_days, 5)

        // Released, the held run goes at the next sweep.
        const released = yield* http("DELETE", `/api/v1/workflow/runs/${heldRun}/retention-hold`, { token: admin })
        assert.isFalse(released.body.retention_hold)
        yield* gone(admin, heldRun)
        assert.strictEqual((yield* settings(admin, me.tenant_id, { run_retention_days: 30 })).status, 200)
      }))

    it.effect("a shorter detail period removes a run's spans and streamed tokens, and keeps the run, its steps and its other events", () =>
      Effect.gen(function*() {
        const admin = yield* adminToken
        const model = yield* ScriptedModel
        model.setScript(() => ({ chunks: ["one ", "two"] }))
        const tenant = yield* createTenant(admin, `det-${Date.now().toString(36)}`)
        const member = yield* createMember(admin, "system_admin", { tenantId: tenant.id })
        const token = yield* loginToken(member.email, member.password, tenant.slug)
        assert.strictEqual((yield* settings(token, tenant.id, { run_detail_retention_days: 1 })).status, 200)
        const workflow = yield* publishedWorkflow(token, simpleDag())
        const old = yield* completedRun(token, workflow)
        const fresh = yield* completedRun(token, workflow)
        // Spans are rows of run_spans, or held in the journal's records with the events they ended with (`detail`).
        const spansOf = (runId: string) =>
          withDb((c) =>
            c.query("SELECT (SELECT count(*) FROM run_spans WHERE run_id = $1) + (SELECT count(*) FROM run_events WHERE run_id = $1 AND detail) AS n", [runId])
              .then((r) => Number(r.rows[0].n))
          )
        assert.isAbove(yield* spansOf(old), 0)
        yield* age([old], 3)
        yield* eventually(spansOf(old).pipe(Effect.map((n) => (n === 0 ? true : undefined))), "the old run's spans to go")
        const stream = yield* readStream(token, old)
        const types = stream.events.map((e) => e.data.type)
        assert.notInclude(types, "token")
        assert.includeMembers(types, ["step_started", "agent_completed", "step_completed", "run_completed"])
        const steps = yield* http("GET", `/api/v1/workflow/runs/${old}/steps`, { token })
        assert.strictEqual(steps.body.items[0].status, "completed")
        assert.isAbove(yield* spansOf(fresh), 0)
        assert.include((yield* readStream(token, fresh)).events.map((e) => e.data.type), "token")
      }))
  }
)
